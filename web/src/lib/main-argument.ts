import type { JsonObject } from "../api/types.js";

/**
 * The argument that says what a call is about, shown as a chip on its card: the first required string property of
 * the tool's schema (a path, an expression, a query), else the first short string or number argument.
 */
export function mainArgument(args: JsonObject | undefined, schema?: JsonObject): string | undefined {
  if (!args) return undefined;
  const required = Array.isArray(schema?.required) ? (schema.required as unknown[]) : [];
  const properties = (schema?.properties ?? {}) as Record<string, { type?: unknown }>;
  for (const key of required) {
    if (typeof key !== "string") continue;
    const value = args[key];
    if (typeof value === "string" && properties[key]?.type !== "object") return value;
  }
  for (const value of Object.values(args)) {
    if (typeof value === "string" && value.length > 0) return value;
    if (typeof value === "number") return String(value);
  }
  return undefined;
}
