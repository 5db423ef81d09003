import type { DecodeOutcome } from "./call-body-region.js";
import { ARG_KEYS, NAME_KEYS } from "./decode-call-object.js";
import { jsonCallsDecoder } from "./json-call-decoder.js";
import { parseJsonLenient } from "./parse-json-lenient.js";

function looksLikeCall(v: unknown): boolean {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return NAME_KEYS.some((k) => typeof o[k] === "string") && ARG_KEYS.some((k) => k in o);
}

/**
 * Decoder for a JSON list that starts without a dedicated token (`functools[…]`, a bare `[{"name": …}]`): it is a
 * call list only when one of its elements is a call object (a name and arguments); otherwise it is prose that
 * happens to contain JSON, given back as content together with the `opener` text that preceded it.
 */
export function callListOrProseDecoder(example: string, opener = ""): (raw: string) => DecodeOutcome {
  const decodeCalls = jsonCallsDecoder(example);
  return (raw) => {
    const parsed = parseJsonLenient(raw);
    const calls = parsed.ok && Array.isArray(parsed.value) && parsed.value.some(looksLikeCall);
    return calls ? decodeCalls(raw) : { items: [{ kind: "content", text: opener + raw }] };
  };
}
