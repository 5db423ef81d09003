import { parseJsonLenient } from "./core/parse-json-lenient.js";

/** `repaired`: the text was not valid JSON and `jsonrepair` mended it. */
export type DecodedArguments =
  | { ok: true; value: Record<string, unknown>; repaired?: boolean }
  | { ok: false; error: string };

/**
 * A call's arguments as a model or a backend sent them — an object, a JSON string (as OpenAI-style APIs stream
 * them), a double-encoded or slightly broken one — made into the one object a tool takes. The one place arguments
 * are decoded: text protocols, native backends and the loop all come through here. Empty means no arguments.
 */
export function decodeCallArguments(raw: unknown): DecodedArguments {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") return { ok: true, value: {} };
    const parsed = parseJsonLenient(raw);
    if (!parsed.ok) return { ok: false, error: `the arguments are not valid JSON (${parsed.error})` };
    value = parsed.value;
    // Double-encoded: a JSON string whose text is the object.
    if (typeof value === "string") {
      const inner = decodeCallArguments(value);
      return inner.ok && parsed.repaired ? { ...inner, repaired: true } : inner;
    }
    if (parsed.repaired && value !== null && typeof value === "object" && !Array.isArray(value))
      return { ok: true, value: value as Record<string, unknown>, repaired: true };
  }
  if (value === undefined || value === null) return { ok: true, value: {} };
  if (typeof value !== "object" || Array.isArray(value))
    return { ok: false, error: 'the arguments must be one JSON object, e.g. {"name": "value"}' };
  return { ok: true, value: value as Record<string, unknown> };
}
