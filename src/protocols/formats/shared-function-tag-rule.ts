import type { StartRule } from "../core/stream-engine.js";
import { namedArgumentsRegion } from "./shared-named-arguments-region.js";

/** The `<function=…>` call as Functionary v3.1's and Llama 3.1's prompts show it. */
export const FUNCTION_TAG_EXAMPLE = '<function=<function name>>{"<argument name>": <value>}</function>';

/**
 * `<function=name>{…}</function>` — Functionary v3.1 and Llama 3.1's custom-tool syntax. The closing tag also ends
 * an arguments object the model left open (it is then repaired).
 */
export function functionTagRule(): StartRule {
  return {
    first: "<",
    pattern: ["<function=", { ident: "name" }, ">"],
    open: (ctx, m) => {
      const name = m.captures.name!;
      return namedArgumentsRegion(ctx, name, {
        opener: m.text,
        endMarker: "</function>",
        // A string body is double-encoded arguments; the closing tag ends it.
        valueStart: '{"',
        example: FUNCTION_TAG_EXAMPLE,
        what: `the arguments of <function=${name}>`,
      });
    },
  };
}
