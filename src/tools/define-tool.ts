import type { Tool, ToolAnnotations } from "@modelcontextprotocol/server";
import { z } from "zod";
import { ToolDefinitionError, ToolInputError } from "./errors.js";
import type { ToolDefinition, ToolHandler, ToolOptions } from "./tool-definition.js";
import { assertValidToolName } from "./tool-name.js";
import { compileToolSchema } from "./validate-tool-input.js";

export type JsonSchemaObject = Tool["inputSchema"];

interface DefineToolBase extends ToolOptions {
  name: string;
  title?: string;
  description?: string;
  outputSchema?: Tool["outputSchema"] | z.ZodType;
  annotations?: ToolAnnotations;
  _meta?: Record<string, unknown>;
}

export interface DefineToolWithZod<S extends z.ZodType> extends DefineToolBase {
  inputSchema: S;
  handler: ToolHandler<z.output<S>>;
}

export interface DefineToolWithJsonSchema<Args> extends DefineToolBase {
  inputSchema: JsonSchemaObject;
  handler: ToolHandler<Args>;
}

function isZodSchema(value: unknown): value is z.ZodType {
  return typeof value === "object" && value !== null && "_zod" in value;
}

function toJsonSchema(schema: unknown, role: "input" | "output", toolName: string): JsonSchemaObject {
  let json: Record<string, unknown>;
  if (isZodSchema(schema)) {
    // The model fills in the *input* side of a zod schema: fields with defaults are optional there.
    const converted = z.toJSONSchema(schema, { target: "draft-2020-12", io: role }) as Record<
      string,
      unknown
    >;
    const { $schema: _dropped, ...rest } = converted;
    json = rest;
  } else if (typeof schema === "object" && schema !== null && !Array.isArray(schema)) {
    json = schema as Record<string, unknown>;
  } else {
    throw new ToolDefinitionError(
      `Tool "${toolName}": ${role}Schema must be a JSON Schema object or a zod schema.`,
    );
  }
  if (json.type !== "object") {
    throw new ToolDefinitionError(
      `Tool "${toolName}": ${role}Schema must describe an object (MCP requires "type": "object"), got ${JSON.stringify(json.type ?? null)}.`,
    );
  }
  return json as JsonSchemaObject;
}

function deriveRequiresApproval(annotations: ToolAnnotations | undefined): boolean {
  // Only explicit hints count: MCP's pessimistic defaults (destructive unless read-only) would put every plain tool
  // behind an approval prompt.
  if (!annotations) return false;
  if (annotations.destructiveHint === true && annotations.readOnlyHint !== true) return true;
  return annotations.openWorldHint === true && annotations.readOnlyHint !== true;
}

function checkPositive(value: number | undefined, what: string, toolName: string): void {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value <= 0) {
    throw new ToolDefinitionError(`Tool "${toolName}": ${what} must be a positive number, got ${value}.`);
  }
}

/**
 * Define a tool: an MCP tool object plus handler and toolbridge options. The input schema may be JSON Schema
 * (draft-07 or 2020-12) or zod; it is compiled once here so a broken schema fails at definition time, not at the
 * first call.
 */
export function defineTool<S extends z.ZodType>(
  definition: DefineToolWithZod<S>,
): ToolDefinition<z.output<S>>;
export function defineTool<Args = Record<string, unknown>>(
  definition: DefineToolWithJsonSchema<Args>,
): ToolDefinition<Args>;
export function defineTool(
  definition: DefineToolWithZod<z.ZodType> | DefineToolWithJsonSchema<Record<string, unknown>>,
): ToolDefinition<never> {
  const { name, title, description, annotations, _meta, handler, inputSchema, outputSchema, ...options } =
    definition;
  assertValidToolName(name);
  if (typeof handler !== "function") {
    throw new ToolDefinitionError(`Tool "${name}": handler must be a function.`);
  }
  checkPositive(options.timeoutMs, "timeoutMs", name);
  checkPositive(options.maxQueueWaitMs, "maxQueueWaitMs", name);
  checkPositive(options.cooldownMs, "cooldownMs", name);
  checkPositive(options.maxOutputChars, "maxOutputChars", name);
  if (options.rateLimit) {
    checkPositive(options.rateLimit.maxCalls, "rateLimit.maxCalls", name);
    checkPositive(options.rateLimit.windowMs, "rateLimit.windowMs", name);
  }

  const tool: Tool = { name, inputSchema: toJsonSchema(inputSchema, "input", name) };
  if (title !== undefined) tool.title = title;
  if (description !== undefined) tool.description = description;
  if (outputSchema !== undefined) tool.outputSchema = toJsonSchema(outputSchema, "output", name);
  if (annotations !== undefined) tool.annotations = annotations;
  if (_meta !== undefined) tool._meta = _meta;

  compileToolSchema(tool.inputSchema, `${name} inputSchema`);
  if (tool.outputSchema) compileToolSchema(tool.outputSchema, `${name} outputSchema`);

  return Object.freeze({
    ...options,
    tool,
    handler: (isZodSchema(inputSchema)
      ? withZodParse(inputSchema, handler, name)
      : handler) as ToolHandler<never>,
    category: options.category ?? "general",
    requiresApproval: options.requiresApproval ?? deriveRequiresApproval(annotations),
    hasSideEffects: annotations?.readOnlyHint !== true,
  });
}

/**
 * A zod schema's parse is what makes the handler's argument type true: defaults filled in, transforms applied. The
 * arguments were already validated against the JSON Schema, so this rarely fails (a refinement JSON Schema cannot
 * express); when it does, the tool reports which argument and why, as for any invalid argument.
 */
function withZodParse(
  schema: z.ZodType,
  handler: ToolHandler<never>,
  toolName: string,
): ToolHandler<Record<string, unknown>> {
  return (args, context) => {
    const parsed = schema.safeParse(args);
    if (!parsed.success) {
      throw new ToolInputError(
        toolName,
        parsed.error.issues.map((issue) => `\`${issue.path.join(".") || "arguments"}\` ${issue.message}`),
      );
    }
    return handler(parsed.data as never, context);
  };
}

/** Wrap an MCP tool object that arrives from elsewhere (a mounted MCP server) with a handler. */
export function toolDefinitionFromMcpTool<Args = Record<string, unknown>>(
  tool: Tool,
  handler: ToolHandler<Args>,
  options: ToolOptions = {},
): ToolDefinition<Args> {
  assertValidToolName(tool.name);
  compileToolSchema(tool.inputSchema, `${tool.name} inputSchema`);
  return Object.freeze({
    ...options,
    tool,
    handler,
    category: options.category ?? "general",
    requiresApproval: options.requiresApproval ?? deriveRequiresApproval(tool.annotations),
    hasSideEffects: tool.annotations?.readOnlyHint !== true,
  });
}
