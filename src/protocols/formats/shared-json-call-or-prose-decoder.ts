import type { DecodeOutcome } from "../core/call-body-region.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";

const ARG_KEYS = ["parameters", "arguments", "args", "input"];

/** `{"name": "Bob"}` — an object with a name but no arguments — is prose, not a call. */
function isProseObject(v: unknown): boolean {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !ARG_KEYS.some((k) => k in v);
}

/**
 * Decoder for a JSON call (or list of calls) that starts without a dedicated token, so it may be prose: when
 * no object carries arguments the text goes back as content exactly as the model wrote it; otherwise each
 * object is decoded as a call. Used where the call is a bare `{"name": …, "parameters": …}` (Llama 3, Gemma 3)
 * or a bare `[{"name": …}]` list (Mistral without its marker).
 */
export function jsonCallOrProseDecoder(example: string): (raw: string) => DecodeOutcome {
  const decode = jsonCallsDecoder(example, (v) => {
    const list = Array.isArray(v) ? v : [v];
    return list.every(isProseObject) ? [{ kind: "content", text: "" }] : list;
  });
  return (raw) => {
    const out = decode(raw);
    if ("items" in out && out.items[0]?.kind === "content")
      return { items: [{ kind: "content", text: raw }] };
    return out;
  };
}
