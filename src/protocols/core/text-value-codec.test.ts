import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decodeTextValue,
  encodeTextValue,
  isNewlineWrapped,
  propertySchema,
  unwrapNewlinePair,
} from "./text-value-codec.js";

/** JSON values as they come back from JSON (no -0, no undefined). */
const jsonValue = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

function schemaFor(v: unknown): unknown {
  if (v === null) return { type: "null" };
  if (Array.isArray(v)) return { type: "array" };
  if (typeof v === "number") return { type: "number" };
  return { type: typeof v };
}

describe("text-carried argument values", () => {
  it("every JSON value written by encodeTextValue reads back unchanged, without a schema and with its own", () => {
    fc.assert(
      fc.property(jsonValue, (v) => {
        const text = encodeTextValue(v);
        expect(text).not.toContain("</");
        expect(decodeTextValue(text, undefined)).toEqual(v);
        expect(decodeTextValue(text, schemaFor(v))).toEqual(v);
      }),
      { numRuns: 2000 },
    );
  });

  it("strings survive a format that unwraps newline-wrapped values", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("a", "\n", " ", "5", '"', "<", "/") }), (s) => {
        const text = encodeTextValue(s, isNewlineWrapped);
        expect(decodeTextValue(unwrapNewlinePair(text), { type: "string" })).toBe(s);
      }),
      { numRuns: 2000 },
    );
  });

  it("reads values by schema: strings stay text, other types from JSON or Python literals", () => {
    expect(decodeTextValue("10001", { type: "string" })).toBe("10001");
    expect(decodeTextValue("10001", undefined)).toBe(10001);
    expect(decodeTextValue("True", { type: "boolean" })).toBe(true);
    expect(decodeTextValue("{'a': None, 'b': [1, 2.5]}", { type: "object" })).toEqual({
      a: null,
      b: [1, 2.5],
    });
    expect(decodeTextValue("['x', 'y',]", { type: "array" })).toEqual(["x", "y"]);
    expect(decodeTextValue("None", { type: ["string", "null"] })).toBe("None");
    expect(decodeTextValue("null", { anyOf: [{ type: "integer" }, { type: "null" }] })).toBeNull();
    expect(decodeTextValue("[draft] notes", undefined)).toBe("[draft] notes");
    expect(decodeTextValue("twelve", { type: "integer" })).toBe("twelve");
  });

  it("finds an argument's schema in the tools", () => {
    const tools = [
      { name: "f", inputSchema: { type: "object" as const, properties: { n: { type: "integer" } } } },
    ];
    expect(propertySchema(tools, "f", "n")).toEqual({ type: "integer" });
    expect(propertySchema(tools, "g", "n")).toBeUndefined();
    expect(propertySchema(undefined, "f", "n")).toBeUndefined();
  });
});
