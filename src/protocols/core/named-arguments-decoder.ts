import { readCallArguments } from "../decode-call-arguments.js";
import type { DecodeOutcome } from "./call-body-region.js";
import { parseJsonLenient } from "./parse-json-lenient.js";

/**
 * Decoder for a body that is only the arguments object of a call whose name came from the marker
 * (`<function=name>{…}`, `[TOOL_CALLS]name[ARGS]{…}`, `>>>name\n{…}`): lenient JSON, double-encoded arguments
 * decoded.
 */
export function namedArgumentsDecoder(name: string) {
  return (raw: string): DecodeOutcome => {
    const parsed = parseJsonLenient(raw);
    if (!parsed.ok) return { error: parsed.error };
    const args = readCallArguments(parsed.value);
    if (!args.ok) return { error: args.error };
    return {
      items: [{ kind: "call", name, arguments: args.value, repaired: parsed.repaired || args.repaired }],
    };
  };
}
