import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { BfclSchemaError, convertBfclFunctionToTool, convertBfclSchema } from "./bfcl-schema.js";
import { validateToolInput } from "./validate-tool-input.js";

describe("convertBfclSchema", () => {
  it("maps every BFCL type name to its JSON Schema type", () => {
    const cases: Array<[string, string | undefined]> = [
      ["dict", "object"],
      ["HashMap", "object"],
      ["float", "number"],
      ["double", "number"],
      ["integer", "integer"],
      ["long", "integer"],
      ["byte", "integer"],
      ["short", "integer"],
      ["Bigint", "integer"],
      ["string", "string"],
      ["String", "string"],
      ["char", "string"],
      ["boolean", "boolean"],
      ["Boolean", "boolean"],
      ["array", "array"],
      ["tuple", "array"],
      ["Array", "array"],
      ["ArrayList", "array"],
      ["any", undefined],
      ["", undefined],
    ];
    for (const [bfclType, jsonType] of cases) {
      const schema = convertBfclSchema({ type: "dict", properties: { p: { type: bfclType } }, required: [] });
      const property = (schema.properties as Record<string, Record<string, unknown>>).p!;
      expect(property.type, bfclType).toBe(jsonType);
    }
  });

  it("converts a nested doc: recursion, required at every level, closed root, open nested objects", () => {
    const schema = convertBfclSchema({
      type: "dict",
      properties: {
        point: { type: "tuple", items: { type: "float" }, description: "x, y" },
        area: {
          type: "dict",
          properties: { width: { type: "integer" }, shape: { type: "string", enum: ["square", "circle"] } },
          required: ["width"],
        },
        rows: {
          type: "array",
          items: { type: "array", items: { type: "integer" } },
          minItems: 1,
          maxItems: 3,
        },
        when: { type: "string", format: "date" },
        fee: { type: "integer", maximum: 400 },
      },
      required: ["point", "area"],
    });
    expect(schema).toEqual({
      type: "object",
      properties: {
        point: { type: "array", items: { type: "number" }, description: "x, y" },
        area: {
          type: "object",
          properties: {
            width: { type: "integer" },
            shape: { type: "string", enum: ["square", "circle"] },
          },
          required: ["width"],
        },
        rows: {
          type: "array",
          items: { type: "array", items: { type: "integer" } },
          minItems: 1,
          maxItems: 3,
        },
        when: { type: "string", format: "date" },
        fee: { type: "integer", maximum: 400 },
      },
      required: ["point", "area"],
      additionalProperties: false,
    });
  });

  it("drops `optional` in both forms and the root `default`", () => {
    const schema = convertBfclSchema({
      type: "dict",
      properties: { a: { type: "string", optional: "True" }, b: { type: "integer", optional: true } },
      required: ["a"],
      optional: ["b"],
      default: "a",
    });
    expect(JSON.stringify(schema)).not.toMatch(/optional|default/);
    expect(schema.required).toEqual(["a"]);
  });

  it("keeps defaults of the right type and drops the wrongly typed ones", () => {
    const schema = convertBfclSchema({
      type: "dict",
      properties: {
        keepString: { type: "string", default: "cm" },
        keepFloat: { type: "float", default: 2 },
        keepList: { type: "array", items: { type: "string" }, default: ["a"] },
        keepAny: { type: "any", default: "None" },
        dropBool: { type: "boolean", default: "false" },
        dropInt: { type: "integer", default: "5 years" },
        dropIntFromFloat: { type: "integer", default: 2.5 },
        dropDict: { type: "dict", default: "None" },
        dropString: { type: "string", default: ["a", "b"] },
        dropEnum: { type: "string", enum: ["x", "y"], default: "z" },
        dropItems: { type: "array", items: { type: "integer" }, default: ["1"] },
      },
      required: [],
    });
    const properties = schema.properties as Record<string, Record<string, unknown>>;
    for (const [name, property] of Object.entries(properties)) {
      expect("default" in property, name).toBe(name.startsWith("keep"));
    }
  });

  it("leaves out bounds and keywords that do not apply to the converted type", () => {
    const schema = convertBfclSchema({
      type: "dict",
      properties: {
        answers: { type: "array", items: { type: "integer", minItems: 5, maxItems: 100 } },
        name: { type: "string", maximum: 3, items: { type: "string" } },
        count: { type: "integer", format: "date", properties: { x: { type: "string" } } },
      },
      required: [],
    });
    expect(schema.properties).toEqual({
      answers: { type: "array", items: { type: "integer" } },
      name: { type: "string" },
      count: { type: "integer" },
    });
  });

  it("names the unknown type and where it is", () => {
    const doc = {
      type: "dict",
      properties: { list: { type: "array", items: { type: "Set" } } },
      required: [],
    };
    expect(() => convertBfclSchema(doc)).toThrow(BfclSchemaError);
    try {
      convertBfclSchema(doc);
    } catch (error) {
      const e = error as BfclSchemaError;
      expect(e.bfclType).toBe("Set");
      expect(e.path).toBe("properties.list.items");
      expect(e.message).toContain('"Set"');
      expect(e.message).toContain("properties.list.items");
    }
  });

  it("rejects a type that is not a string", () => {
    expect(() =>
      convertBfclSchema({
        type: "dict",
        properties: { a: { type: ["string", "null"] as unknown as string } },
      }),
    ).toThrow(/Unsupported BFCL type \["string","null"\] at properties\.a/);
  });

  it("output compiles with strict draft-07 and 2020-12 ajv", () => {
    const schema = convertBfclSchema({
      type: "dict",
      properties: {
        coords: { type: "tuple", items: { type: "float" }, default: [1, 2] },
        meta: { type: "HashMap", description: "free-form" },
        anything: { type: "any" },
        level: { type: "string", enum: ["a", "b"], default: "a" },
      },
      required: ["coords"],
    });
    for (const ajv of [new Ajv({ strict: true }), new Ajv2020({ strict: true })]) {
      const validate = ajv.compile(schema);
      expect(validate({ coords: [1.5, 2] })).toBe(true);
      expect(validate({ coords: ["1"] })).toBe(false);
      expect(validate({ coords: [1], extra: 1 })).toBe(false);
    }
  });
});

describe("convertBfclFunctionToTool", () => {
  const doc = {
    name: "math.roots.cubic",
    description: "Roots of a cubic.",
    parameters: {
      type: "dict",
      properties: {
        a: { type: "float" },
        b: { type: "float" },
        precise: { type: "boolean", default: "false" },
      },
      required: ["a", "b"],
    },
  };

  it("keeps the dotted name and description, and the tool validates calls", () => {
    const tool = convertBfclFunctionToTool(doc);
    expect(tool.name).toBe("math.roots.cubic");
    expect(tool.description).toBe("Roots of a cubic.");
    expect(tool.inputSchema.type).toBe("object");
    expect(validateToolInput(tool, { a: 1, b: -2.5, precise: true })).toEqual({ ok: true });
    const bad = validateToolInput(tool, { a: "1", c: 2 });
    expect(bad.ok).toBe(false);
    expect(bad.ok === false && bad.issues.join("\n")).toMatch(/`a` must be a number/);
    expect(bad.ok === false && bad.issues.join("\n")).toMatch(/`b` is required/);
    expect(bad.ok === false && bad.issues.join("\n")).toMatch(/`c` is not an accepted argument/);
  });

  it("names the function when a type is unknown", () => {
    const broken = { ...doc, parameters: { ...doc.parameters, properties: { a: { type: "Decimal" } } } };
    expect(() => convertBfclFunctionToTool(broken)).toThrow(/math\.roots\.cubic.*"Decimal".*properties\.a/);
  });

  it("rejects parameters that are not a dict", () => {
    expect(() => convertBfclFunctionToTool({ ...doc, parameters: { type: "string" } })).toThrow(
      /parameters must be a dict/,
    );
  });
});
