import { describe, expect, it } from "vitest";
import { javascriptSourceValue } from "./javascript-source-value.js";

describe("javascriptSourceValue reads JavaScript source text as BFCL does", () => {
  it("reads strings, numbers and booleans by their type", () => {
    expect(javascriptSourceValue('"text"', "String")).toBe("text");
    expect(javascriptSourceValue("'text'", "String")).toBe("text");
    expect(javascriptSourceValue("text", "String")).toBe("text");
    expect(javascriptSourceValue("-12", "integer")).toBe(-12);
    expect(javascriptSourceValue("1.5", "float")).toBe(1.5);
    expect(javascriptSourceValue("1e3", "float")).toBe("1e3");
    expect(javascriptSourceValue("123n", "Bigint")).toBe(123);
    expect(javascriptSourceValue("false", "Boolean")).toBe(false);
  });

  it("reads arrays and objects, with BFCL's quirks", () => {
    expect(javascriptSourceValue("[1, 'two', true]", "array")).toEqual([1, "two", true]);
    expect(javascriptSourceValue("new Array(1, 2)", "array")).toEqual([1, 2]);
    expect(javascriptSourceValue("[[1, 2], [3, 4]]", "array")).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(javascriptSourceValue('["a", "b"]', "array", "String")).toEqual(["a", "b"]);
    expect(javascriptSourceValue("{key1: 123, 'key2': 'value', key3: false}", "dict")).toEqual({
      key1: 123,
      key2: "value",
      key3: false,
    });
    expect(javascriptSourceValue("{a: [1, 2], b: 'x'}", "dict")).toEqual({ a: [1, 2], b: "x" });
    // Elements are split at every comma.
    expect(javascriptSourceValue('["a,b"]', "array")).toEqual(['"a', 'b"']);
    expect(javascriptSourceValue("listElement", "array")).toBe("listElement");
  });
});
