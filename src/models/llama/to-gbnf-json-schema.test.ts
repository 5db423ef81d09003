import { describe, expect, it } from "vitest";
import { TIME_ZONE_FORMAT, timeZoneNames } from "../../tools/builtin/resolve-time-zone.js";
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

  it("turns a time-zone string into the list of zone names, so a half-copied name cannot be written", () => {
    const zone = { type: "string", format: TIME_ZONE_FORMAT, description: "zone" };
    // Native function calling prints the schema into the prompt: there the zone stays a plain string.
    expect(propertyGrammar(zone)).toEqual({ type: "string", description: "zone" });
    const grammar = propertyGrammar(zone, { enumerations: { [TIME_ZONE_FORMAT]: timeZoneNames } }) as {
      enum: string[];
      description: string;
    };
    expect(grammar.description).toBe("zone");
    expect(grammar.enum).toEqual(expect.arrayContaining(["UTC", "Europe/Vilnius", "America/New_York"]));
    // Today's names of renamed zones as well as ICU's older canonical ones.
    expect(grammar.enum).toEqual(expect.arrayContaining(["Asia/Kolkata", "Asia/Calcutta", "Europe/Kyiv"]));
    expect(grammar.enum).not.toContain("Europe/Vilius");
    expect(grammar.enum).not.toContain("Tokyo");
    expect(grammar.enum.length).toBeGreaterThan(400);
  });
});
