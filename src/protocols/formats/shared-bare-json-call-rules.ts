import type { PatternToken } from "../core/match-pattern.js";
import type { StartRule } from "../core/stream-engine.js";
import { jsonBodyRules } from "./shared-json-body-rules.js";
import { jsonCallOrProseDecoder } from "./shared-json-call-or-prose-decoder.js";

const WS: PatternToken = { ws: true };

/**
 * Llama 3.x custom-tool replies without a marker: `{"name": …, "parameters": {…}}` (optionally
 * `{"type": "function", "name": …}`), bare or fenced, several separated by `;`. Call-start waits for the
 * arguments and an object without them (`{"name": "Bob"}`) stays content, since prose mentions such JSON.
 */
export function bareJsonCallRules(example: string): StartRule[] {
  return jsonBodyRules([{ opt: ['"type"', WS, ":", WS, '"function"', WS, ",", WS] }, '"name"'], {
    separators: ";",
    startOnArguments: true,
    isCallPath: (p) => p.length === 0,
    decode: jsonCallOrProseDecoder(example),
    example,
    what: "the JSON call",
  });
}
