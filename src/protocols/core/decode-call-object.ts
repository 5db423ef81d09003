import { readCallArguments } from "../decode-call-arguments.js";

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
  const args = readCallArguments(rawArgs, `the arguments of "${name}"`);
  if (!args.ok) return { ok: false, error: `${args.error}; send the call as ${example}` };
  const id = typeof obj.id === "string" && obj.id !== "" ? obj.id : undefined;
  return { ok: true, name, arguments: args.value, repaired: args.repaired, ...(id ? { id } : {}) };
}
