import { parseJsonLenient } from "./core/parse-json-lenient.js";

/** `repaired`: the text was not valid JSON and `jsonrepair` mended it. */
export type DecodedArguments =
  | { ok: true; value: Record<string, unknown>; repaired?: boolean }
  | { ok: false; error: string };

/** DecodedArguments, saying whether the text had to be mended (jsonrepair) to be read: a repaired call. */
export type ReadArguments =
  | { ok: true; value: Record<string, unknown>; repaired: boolean }
  | { ok: false; error: string };

/** How many times arguments may be JSON-encoded over: a string of the object, and a string of that string. */
const MAX_ENCODINGS = 2;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return "a string";
  return typeof value === "number" ? "a number" : `a ${typeof value}`;
}

/**
 * The one place a call's arguments are decoded — text protocols, native backends, the /v1 request readers and the loop
 * all come through here: an object as is; a JSON string (as OpenAI-style APIs send them), fenced or slightly broken
 * (repaired, and said so); one encoded twice; nothing (absent, null, empty) as no arguments. Anything else is an error
 * naming `subject` (`the arguments of "get_weather"`) that a model can act on.
 */
export function readCallArguments(raw: unknown, subject = "the arguments", encodings = 0): ReadArguments {
  if (raw === undefined || raw === null) return { ok: true, value: {}, repaired: false };
  if (isRecord(raw)) return { ok: true, value: raw, repaired: false };
  if (typeof raw === "string") {
    if (raw.trim() === "") return { ok: true, value: {}, repaired: false };
    const parsed = parseJsonLenient(raw);
    if (!parsed.ok) return { ok: false, error: `${subject} are not valid JSON (${parsed.error})` };
    if (parsed.value === null) return { ok: true, value: {}, repaired: parsed.repaired };
    if (isRecord(parsed.value)) return { ok: true, value: parsed.value, repaired: parsed.repaired };
    // Encoded once more (a JSON string of the JSON text). Not when the string itself came out of a repair: jsonrepair
    // makes a string of any text, and that text would be repaired into a string again.
    if (typeof parsed.value === "string" && !parsed.repaired && encodings < MAX_ENCODINGS)
      return readCallArguments(parsed.value, subject, encodings + 1);
    raw = parsed.value;
  }
  return {
    ok: false,
    error: `${subject} must be one JSON object, e.g. {"name": "value"}, not ${kindOf(raw)}`,
  };
}

/** readCallArguments, for callers that take mended arguments like any others (the loop, the servers, eval). */
export function decodeCallArguments(raw: unknown, subject?: string): DecodedArguments {
  const read = readCallArguments(raw, subject);
  if (!read.ok) return read;
  return read.repaired ? { ok: true, value: read.value, repaired: true } : { ok: true, value: read.value };
}
