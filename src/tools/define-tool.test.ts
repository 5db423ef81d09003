import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "./define-tool.js";
import { ToolDefinitionError } from "./errors.js";
import { ToolExecutor } from "./tool-executor.js";
import { ToolRegistry } from "./tool-registry.js";

describe("defineTool", () => {
  it("produces a plain MCP tool object from a JSON Schema definition", () => {
    const definition = defineTool({
      name: "calculator",
      title: "Calculator",
      description: "Evaluate an expression",
      inputSchema: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
      annotations: { readOnlyHint: true },
      category: "math",
      timeoutMs: 2000,
      handler: () => "4",
    });
    expect(definition.tool).toEqual({
      name: "calculator",
      title: "Calculator",
      description: "Evaluate an expression",
      inputSchema: {
        type: "object",
        properties: { expression: { type: "string" } },
        required: ["expression"],
      },
      annotations: { readOnlyHint: true },
    });
    expect(definition).toMatchObject({
      category: "math",
      timeoutMs: 2000,
      requiresApproval: false,
      hasSideEffects: false,
    });
  });

  it("converts zod schemas (input side: defaults make fields optional)", () => {
    const definition = defineTool({
      name: "get_time",
      inputSchema: z.object({ timezone: z.string().default("UTC"), format: z.enum(["full", "iso"]) }),
      handler: ({ timezone }) => timezone,
    });
    expect(definition.tool.inputSchema).toMatchObject({
      type: "object",
      properties: { timezone: { type: "string", default: "UTC" }, format: { enum: ["full", "iso"] } },
      required: ["format"],
    });
    expect(definition.tool.inputSchema).not.toHaveProperty("$schema");
  });

  it.each([
    ["", "1–128 characters"],
    ["x".repeat(129), "1–128 characters"],
    ["has space", 'contains " "'],
    ["slash/name", 'contains "/"'],
    ["ünïcode", "only letters"],
  ])("rejects the invalid name %j with a clear error", (name, message) => {
    expect(() => defineTool({ name, inputSchema: { type: "object" }, handler: () => "" })).toThrow(message);
  });

  it("accepts every MCP-legal character", () => {
    expect(
      defineTool({ name: "a-Z_0.9", inputSchema: { type: "object" }, handler: () => "" }).tool.name,
    ).toBe("a-Z_0.9");
  });

  it("rejects non-object and broken schemas at definition time", () => {
    expect(() => defineTool({ name: "x", inputSchema: z.string() as never, handler: () => "" })).toThrow(
      /must describe an object/,
    );
    expect(() =>
      defineTool({
        name: "x",
        inputSchema: { type: "object", properties: { a: { type: "nonsense" } } },
        handler: () => "",
      }),
    ).toThrow(ToolDefinitionError);
  });

  it("derives requiresApproval from explicit annotations, and an explicit option wins", () => {
    const base = { inputSchema: { type: "object" as const }, handler: () => "" };
    expect(defineTool({ name: "rm", annotations: { destructiveHint: true }, ...base }).requiresApproval).toBe(
      true,
    );
    expect(defineTool({ name: "post", annotations: { openWorldHint: true }, ...base }).requiresApproval).toBe(
      true,
    );
    expect(
      defineTool({ name: "search", annotations: { openWorldHint: true, readOnlyHint: true }, ...base })
        .requiresApproval,
    ).toBe(false);
    expect(defineTool({ name: "plain", ...base }).requiresApproval).toBe(false);
    expect(
      defineTool({ name: "rm2", annotations: { destructiveHint: true }, requiresApproval: false, ...base })
        .requiresApproval,
    ).toBe(false);
  });

  it("rejects nonsensical limits", () => {
    expect(() =>
      defineTool({ name: "x", inputSchema: { type: "object" }, timeoutMs: 0, handler: () => "" }),
    ).toThrow("timeoutMs must be a positive number");
  });
});

describe("defineTool with a zod schema", () => {
  it("hands the handler what the schema parses to: defaults filled in, transforms applied", async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      name: "weather",
      inputSchema: z.object({
        city: z.string().transform((c) => c.trim()),
        unit: z.enum(["C", "F"]).default("C"),
      }),
      handler: (args) => {
        seen.push(args);
        return "ok";
      },
    });
    const registry = new ToolRegistry();
    registry.register(tool);
    await new ToolExecutor(registry).call("weather", { city: " Oslo " });
    expect(seen).toEqual([{ city: "Oslo", unit: "C" }]);
  });
});
