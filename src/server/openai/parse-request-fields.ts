import type { Tool } from "@modelcontextprotocol/server";
import { invalidRequest } from "./openai-api-error.js";

/**
 * Field readers every /v1 API's request parser shares: one rule for a function tool's name and schema, for naming a
 * tool in a tool choice, for counts and flags. Each throws a 400 naming the offending field (`param`); each API writes
 * that error in its own shape.
 */

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * A function tool from its `name`, `description` and JSON Schema (`parameters` or, for Anthropic, `input_schema`), as
 * the MCP tool the models take. `at` names the object holding them (`tools[2].function`, `tools[2]`); `seen` keeps the
 * names unique across the request.
 */
export function functionTool(
  spec: Json,
  at: string,
  seen: Set<string>,
  schemaKey: "parameters" | "input_schema" = "parameters",
): Tool {
  if (typeof spec.name !== "string" || !FUNCTION_NAME.test(spec.name))
    throw invalidRequest(
      `\`${at}.name\` must be 1-64 letters, digits, _ or -, got ${JSON.stringify(spec.name)}.`,
      `${at}.name`,
    );
  if (seen.has(spec.name))
    throw invalidRequest(`Two tools are named "${spec.name}"; tool names must be unique.`, `${at}.name`);
  seen.add(spec.name);
  if (spec.description !== undefined && spec.description !== null && typeof spec.description !== "string")
    throw invalidRequest(`\`${at}.description\` must be a string.`, `${at}.description`);
  const parameters = spec[schemaKey] ?? { type: "object", properties: {} };
  if (!isObject(parameters) || (parameters.type !== undefined && parameters.type !== "object"))
    throw invalidRequest(
      `\`${at}.${schemaKey}\` must be a JSON Schema object ({"type": "object", "properties": {…}}).`,
      `${at}.${schemaKey}`,
    );
  return {
    name: spec.name,
    ...(typeof spec.description === "string" && spec.description ? { description: spec.description } : {}),
    inputSchema: { ...parameters, type: "object" } as Tool["inputSchema"],
  };
}

/** A tool choice's tool name, which must be one of the request's tools. */
export function namedTool(name: unknown, tools: readonly Tool[], param: string): string {
  if (typeof name !== "string" || !tools.some((t) => t.name === name))
    throw invalidRequest(
      `\`${param}\` names ${JSON.stringify(name)}, which is not one of the request's tools (${tools.map((t) => t.name).join(", ") || "none"}).`,
      param,
    );
  return name;
}

export function positiveInteger(value: unknown, param: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1)
    throw invalidRequest(`\`${param}\` must be a positive integer, got ${JSON.stringify(value)}.`, param);
  return value;
}

export function optionalBoolean(value: unknown, param: string, fallback: boolean): boolean {
  if (value === undefined || value === null) return fallback;
  if (typeof value !== "boolean") throw invalidRequest(`\`${param}\` must be true or false.`, param);
  return value;
}
