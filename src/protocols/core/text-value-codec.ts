import type { Tool } from "@modelcontextprotocol/server";
import { coerceValue } from "./coerce-by-schema.js";
import { parseJsonLenient } from "./parse-json-lenient.js";
import { parsePythonCalls } from "./python-literal-parser.js";

/**
 * Argument values that a format carries as bare text (`<parameter=k>value</parameter>`,
 * `<arg_value>value</arg_value>`): chat templates write strings raw and everything else as JSON (or, for
 * templates that use Jinja's `| string`, as a Python literal). Reading them back needs the schema to tell the
 * string `"5"` from the number 5; without one, text that is JSON is read as JSON.
 */

type Schema = Record<string, unknown>;

/** The schema of one argument of one tool, if the tools say. */
export function propertySchema(tools: readonly Tool[] | undefined, toolName: string, key: string): unknown {
  const tool = tools?.find((t) => t.name === toolName);
  const props = (tool?.inputSchema as Schema | undefined)?.properties;
  if (typeof props !== "object" || props === null) return undefined;
  return (props as Schema)[key];
}

function schemaTypes(schema: unknown): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const s = schema as Schema;
  const out: string[] = [];
  const add = (t: unknown) => {
    if (typeof t === "string") out.push(t);
    else if (Array.isArray(t)) for (const x of t) if (typeof x === "string") out.push(x);
  };
  add(s.type);
  for (const k of ["anyOf", "oneOf"]) {
    const alts = s[k];
    if (Array.isArray(alts))
      for (const a of alts) if (typeof a === "object" && a !== null) add((a as Schema).type);
  }
  return out;
}

function jsonTypeOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

function typeAccepted(v: unknown, types: readonly string[]): boolean {
  const t = jsonTypeOf(v);
  if (t === "integer") return types.includes("integer") || types.includes("number");
  return types.includes(t);
}

const JSON_START = /^[-\d"[{tfn]/;

function strictJson(t: string): { ok: true; value: unknown } | { ok: false } {
  if (!JSON_START.test(t)) return { ok: false };
  try {
    return { ok: true, value: JSON.parse(t) };
  } catch {
    return { ok: false };
  }
}

/** A Python literal (`{'a': True}`, `None`) through the literal parser — nothing is evaluated. */
function pythonLiteral(t: string): { ok: true; value: unknown } | { ok: false } {
  if (t === "" || t.length > 1_000_000) return { ok: false };
  const r = parsePythonCalls(`v(v=${t})`);
  if (!r.ok || r.calls.length !== 1) return { ok: false };
  const args = r.calls[0]!.arguments;
  return "v" in args && Object.keys(args).length === 1 ? { ok: true, value: args.v } : { ok: false };
}

/**
 * Reads one text-carried value. `schema` is the argument's JSON Schema (or undefined).
 * - A JSON string literal (`"5"`) is always unwrapped: renderers quote strings that would read otherwise.
 * - Text that is other JSON becomes that value unless the schema wants a string and not that type.
 * - Other text is a string whenever a string is allowed (or no schema says otherwise; then only a strict
 *   Python dict/list literal is read). A schema that rules strings out gets Python literals (`True`,
 *   `{'a': None}`) and repaired JSON tried first.
 */
export function decodeTextValue(text: string, schema: unknown): unknown {
  const types = schemaTypes(schema);
  const t = text.trim();
  // `null` is null whatever the schema says, as vLLM's XML parsers read it (a string argument that is
  // literally "null" is written quoted by the renderers); Python's `None` too unless a string is allowed.
  if (t === "null" || (t === "None" && !types.includes("string"))) return null;
  const json = strictJson(t);
  if (json.ok) {
    const v = json.value;
    if (typeof v === "string") return v;
    if (types.length === 0) return v;
    if (typeAccepted(v, types)) return coerceValue(v, schema);
    if (types.includes("string")) return text;
    return coerceValue(v, schema);
  }
  if (types.length === 0) {
    // Without a schema only a strict Python literal counts: prose in brackets stays text.
    if (/^[[{]/.test(t)) {
      const py = pythonLiteral(t);
      if (py.ok && typeof py.value === "object" && py.value !== null) return py.value;
    }
    return text;
  }
  // Text that is not JSON is the string itself whenever a string is allowed.
  if (types.includes("string")) return text;
  const py = pythonLiteral(t);
  if (py.ok && typeAccepted(py.value, types)) return coerceValue(py.value, schema);
  if (/^[[{]/.test(t) && (types.includes("object") || types.includes("array"))) {
    const repaired = parseJsonLenient(t);
    if (repaired.ok && typeAccepted(repaired.value, types)) return coerceValue(repaired.value, schema);
  }
  return coerceValue(text, schema);
}

/** JSON with `</` written `<\/` (an equivalent escape) so no closing tag can appear inside it. */
export function jsonNoCloseTags(value: unknown): string {
  return (JSON.stringify(value) ?? "null").replace(/<\//g, "<\\/");
}

/**
 * Writes one value as text so that `decodeTextValue` (with or without a schema) reads it back unchanged:
 * strings raw when they read back as themselves, else JSON-quoted; other values as JSON. `mustQuote` names
 * further strings the format cannot carry raw (e.g. ones its own value unwrapping would alter).
 */
export function encodeTextValue(value: unknown, mustQuote?: (s: string) => boolean): string {
  if (typeof value === "string") {
    const raw =
      !value.includes("</") && decodeTextValue(value, undefined) === value && !(mustQuote?.(value) ?? false);
    return raw ? value : jsonNoCloseTags(value);
  }
  return jsonNoCloseTags(value === undefined ? null : value);
}

/** A value a model wrapped in newlines (`<arg_value>\ncode\n</arg_value>`) is the text between them. */
export function unwrapNewlinePair(raw: string): string {
  return isNewlineWrapped(raw) ? raw.slice(1, -1) : raw;
}

/** Strings `unwrapNewlinePair` would alter: renderers write them quoted (`encodeTextValue(v, isNewlineWrapped)`). */
export function isNewlineWrapped(s: string): boolean {
  return s.length >= 2 && s.startsWith("\n") && s.endsWith("\n");
}
