import { describe, expect, it } from "vitest";
import { compileToolSchema, validateToolInput } from "./validate-tool-input.js";

const tool = (inputSchema: Record<string, unknown>) => ({
  name: "t",
  inputSchema: { type: "object" as const, ...inputSchema },
});

describe("validateToolInput", () => {
  it("accepts valid input", () => {
    expect(validateToolInput(tool({ properties: { a: { type: "number" } } }), { a: 1 })).toEqual({
      ok: true,
    });
  });

  it("writes one line per problem, naming the argument and what was expected", () => {
    const result = validateToolInput(
      tool({
        properties: {
          count: { type: "integer", minimum: 1 },
          items: {
            type: "array",
            items: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
          },
          when: { type: "string", format: "date" },
        },
        required: ["expression"],
      }),
      { count: 0, items: [{ id: "a" }, {}], when: "tomorrow" },
    );
    expect(result.ok).toBe(false);
    expect(!result.ok && result.issues).toEqual([
      "`expression` is required",
      "`count` must be >= 1",
      "`items[1].id` is required",
      "`when` must be a valid date",
    ]);
  });

  it("describes type errors with the value it got", () => {
    const result = validateToolInput(tool({ properties: { n: { type: "number" } } }), { n: "five" });
    expect(!result.ok && result.issues).toEqual(['`n` must be a number, got a string ("five")']);
    const notObject = validateToolInput(tool({}), [1, 2]);
    expect(!notObject.ok && notObject.issues).toEqual(["arguments must be an object, got an array"]);
  });

  it("folds anyOf branches into one line", () => {
    const result = validateToolInput(
      tool({ properties: { v: { anyOf: [{ type: "string" }, { type: "number" }] } } }),
      { v: true },
    );
    expect(!result.ok && result.issues).toEqual(["`v` does not match any of the allowed shapes"]);
  });

  it("supports draft-07 and 2020-12 keywords", () => {
    const d7 = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      items: [{ type: "string" }],
    };
    expect(() => compileToolSchema(d7)).not.toThrow();
    const d2020 = tool({
      properties: { p: { type: "array", prefixItems: [{ type: "string" }, { type: "number" }] } },
    });
    expect(validateToolInput(d2020, { p: ["a", 1] })).toEqual({ ok: true });
    expect(validateToolInput(d2020, { p: [1, "a"] }).ok).toBe(false);
  });

  it("compiles each schema object once", () => {
    const schema = { type: "object", properties: {} };
    expect(compileToolSchema(schema)).toBe(compileToolSchema(schema));
  });
});
