import { parseJsonLenient } from "./parse-json-lenient.js";

export type DecodedCall =
  | { ok: true; name: string; arguments: Record<string, unknown>; id?: string; repaired: boolean }
  | { ok: false; error: string };

export const NAME_KEYS = [
  "name",
  "tool_name",
  "tool",
  "function_name",
  "function",
  "recipient_name",
] as const;
export const ARG_KEYS = ["arguments", "parameters", "args", "input", "params"] as const;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Reads `{name, arguments}` out of a call object, accepting the aliases models use (`parameters`, `args`,
 * `input`; OpenAI's `{"function": {"name", "arguments": "<json string>"}}`) and arguments double-encoded
 * as a JSON string. `example` is how a correct call looks in the format, quoted in error messages.
 */
export function decodeCallObject(value: unknown, example: string): DecodedCall {
  if (!isRecord(value)) return { ok: false, error: `a call must be a JSON object; send it as ${example}` };
  let obj = value;
  if (isRecord(obj.function)) obj = { ...obj.function, id: obj.id ?? obj.function.id };
  let name: string | undefined;
  for (const k of NAME_KEYS) {
    const v = obj[k];
    if (typeof v === "string" && v.trim() !== "") {
      name = v.trim();
      break;
    }
  }
  if (name === undefined) return { ok: false, error: `the call has no "name"; send it as ${example}` };
  let rawArgs: unknown;
  for (const k of ARG_KEYS) {
    if (k in obj) {
      rawArgs = obj[k];
      break;
    }
  }
  const args = decodeArguments(rawArgs);
  if (!args.ok)
    return { ok: false, error: `the arguments of "${name}" ${args.error}; send the call as ${example}` };
  const id = typeof obj.id === "string" && obj.id !== "" ? obj.id : undefined;
  return { ok: true, name, arguments: args.value, repaired: args.repaired, ...(id ? { id } : {}) };
}

export type DecodedArguments =
  | { ok: true; value: Record<string, unknown>; repaired: boolean }
  | { ok: false; error: string };

/** Arguments as an object; a JSON string holding an object is decoded (double encoding); absent → `{}`. */
export function decodeArguments(raw: unknown, depth = 0): DecodedArguments {
  if (raw === undefined || raw === null) return { ok: true, value: {}, repaired: false };
  if (isRecord(raw)) return { ok: true, value: raw, repaired: false };
  if (typeof raw === "string") {
    if (raw.trim() === "") return { ok: true, value: {}, repaired: false };
    const parsed = parseJsonLenient(raw);
    if (parsed.ok && isRecord(parsed.value))
      return { ok: true, value: parsed.value, repaired: parsed.repaired };
    // Encoded twice (a JSON string of a JSON string): one more level, never more.
    if (parsed.ok && !parsed.repaired && typeof parsed.value === "string" && depth < 2) {
      return decodeArguments(parsed.value, depth + 1);
    }
    return { ok: false, error: "are a string that does not hold a JSON object" };
  }
  return { ok: false, error: `must be a JSON object, not ${Array.isArray(raw) ? "an array" : typeof raw}` };
}
