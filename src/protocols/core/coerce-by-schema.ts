import type { Tool } from "@modelcontextprotocol/server";

type Schema = Record<string, unknown>;

function schemaTypes(schema: Schema): string[] {
  const t = schema.type;
  if (typeof t === "string") return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === "string");
  return [];
}

/**
 * Converts a value a format carried as text (XML parameter bodies, bare pythonic names) into the type its
 * schema asks for, when the conversion is unambiguous. Anything else is returned unchanged: validation,
 * not the parser, tells the model what is wrong.
 */
export function coerceValue(value: unknown, schema: unknown): unknown {
  if (typeof schema !== "object" || schema === null) return value;
  const s = schema as Schema;
  const types = schemaTypes(s);
  if (types.length === 0) return value;
  if (typeof value === "string") {
    if (types.includes("string")) return value;
    const t = value.trim();
    if ((types.includes("integer") || types.includes("number")) && /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(t)) {
      const num = Number(t);
      if (types.includes("number") || Number.isInteger(num)) return num;
    }
    if (types.includes("boolean")) {
      const lower = t.toLowerCase();
      if (lower === "true") return true;
      if (lower === "false") return false;
    }
    if (types.includes("null") && (t === "null" || t === "None")) return null;
    if ((types.includes("object") || types.includes("array")) && /^[[{]/.test(t)) {
      try {
        return coerceValue(JSON.parse(t), s);
      } catch {
        return value;
      }
    }
    return value;
  }
  if (
    typeof value === "number" &&
    types.includes("string") &&
    !types.includes("number") &&
    !types.includes("integer")
  ) {
    return String(value);
  }
  if (Array.isArray(value) && types.includes("array")) {
    return value.map((v) => coerceValue(v, s.items));
  }
  if (typeof value === "object" && value !== null && types.includes("object")) {
    return coerceObject(value as Record<string, unknown>, s);
  }
  return value;
}

function coerceObject(obj: Record<string, unknown>, schema: Schema): Record<string, unknown> {
  const props = schema.properties;
  if (typeof props !== "object" || props === null) return obj;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = coerceValue(v, (props as Schema)[k]);
  return out;
}

/** Coerces every argument by the named tool's input schema; unknown tools pass through unchanged. */
export function coerceArgumentsBySchema(
  name: string,
  args: Record<string, unknown>,
  tools: readonly Tool[] | undefined,
): Record<string, unknown> {
  const tool = tools?.find((t) => t.name === name);
  if (!tool) return args;
  return coerceObject(args, tool.inputSchema as Schema);
}
