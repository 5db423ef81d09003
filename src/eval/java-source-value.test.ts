import { describe, expect, it } from "vitest";
import { javaSourceValue } from "./java-source-value.js";

describe("javaSourceValue reads Java source text as BFCL does", () => {
  it("reads numbers and booleans by their Java type, suffixes required", () => {
    expect(javaSourceValue("42", "integer")).toBe(42);
    expect(javaSourceValue("42L", "long")).toBe(42);
    expect(javaSourceValue("42", "long")).toBe("42");
    expect(javaSourceValue("1.5f", "float")).toBe(1.5);
    expect(javaSourceValue("1.5", "float")).toBe("1.5");
    expect(javaSourceValue("3e3", "double")).toBe(3000);
    expect(javaSourceValue("true", "boolean")).toBe(true);
    expect(javaSourceValue("yes", "boolean")).toBe("yes");
  });

  it("reads collections, with BFCL's quirks", () => {
    expect(javaSourceValue("new int[]{1, 2, 3}", "Array", "integer")).toEqual([1, 2, 3]);
    expect(javaSourceValue("new long[]{1L, 2, 3L}", "Array", "long")).toEqual([1, "2", 3]);
    // An Array of String keeps each element's quotes (known_issues.json: java_array_string_quotes).
    expect(javaSourceValue('new String[]{"a", "b"}', "Array", "String")).toEqual(['"a"', '"b"']);
    expect(javaSourceValue('new ArrayList<>(Arrays.asList("a", "b"))', "ArrayList", "String")).toEqual([
      "a",
      "b",
    ]);
    expect(
      javaSourceValue("new ArrayList<Double>() {{ add(1.0); add(2.5); }}", "ArrayList", "double"),
    ).toEqual([1, 2.5]);
    expect(javaSourceValue("new ArrayList<>()", "ArrayList", "String")).toEqual([]);
    expect(
      javaSourceValue(
        'new HashMap<String, Object>() {{ put("a", 1); put("b", "x"); put("c", true); }}',
        "HashMap",
      ),
    ).toEqual({ a: 1, b: "x", c: true });
    expect(javaSourceValue("new HashMap<>()", "HashMap")).toEqual({});
    expect(javaSourceValue("myMap", "HashMap")).toBe("myMap");
  });
});
