import { describe, expect, it } from "vitest";
import { toGbnfJsonSchema } from "./to-gbnf-json-schema.js";

/** The grammar schema of one property of a tool's input object. */
function propertyGrammar(property: Record<string, unknown>, options = {}) {
  const converted = toGbnfJsonSchema({ type: "object", properties: { x: property } }, options) as {
    properties: Record<string, unknown>;
  };
  return converted.properties.x;
}

describe("toGbnfJsonSchema", () => {
  it("turns a small bounded integer range into the list of its values, so the grammar keeps calls in range", () => {
    expect(propertyGrammar({ type: "integer", minimum: 1, maximum: 5 })).toEqual({ enum: [1, 2, 3, 4, 5] });
    expect(propertyGrammar({ type: "integer", exclusiveMinimum: 0, exclusiveMaximum: 3 })).toEqual({
      enum: [1, 2],
    });
    expect(propertyGrammar({ type: "integer", exclusiveMinimum: 0.5, maximum: 2.5 })).toEqual({
      enum: [1, 2],
    });
  });

  it("leaves unbounded or wide integer ranges to the validator", () => {
    expect(propertyGrammar({ type: "integer", minimum: 1 })).toEqual({ type: "integer" });
    expect(propertyGrammar({ type: "integer", minimum: 0, maximum: 10_000 })).toEqual({ type: "integer" });
  });

  it("keeps string bounds and caps strings for tiny models", () => {
    expect(propertyGrammar({ type: "string", maxLength: 200 }, { maxStringLength: 64 })).toEqual({
      type: "string",
      maxLength: 64,
    });
  });
});
