import { taggedJsonCallRule } from "../core/start-rules.js";
import type { EngineContext, Region, StartRule } from "../core/stream-engine.js";

/** The Hermes call, as the Hermes, Qwen and GLM templates show it. */
export const HERMES_CALL_EXAMPLE =
  '<tool_call>\n{"name": "<function-name>", "arguments": {<args-json-object>}}\n</tool_call>';

/** `<tool_call>{"name": …, "arguments": {…}}</tool_call>` — the Hermes / Qwen 2.5 / Qwen 3 call. */
export function hermesJsonCallRule(): StartRule {
  return taggedJsonCallRule("<tool_call>", "</tool_call>", HERMES_CALL_EXAMPLE);
}

const fallbackRule = hermesJsonCallRule();

/**
 * Reads a `<tool_call>` section as a Hermes JSON call from its opener on: Qwen3-Coder and GLM models also write
 * Hermes JSON inside their own XML-ish `<tool_call>` blocks.
 */
export function hermesJsonFallback(ctx: EngineContext, opener: string): Region {
  // A tag rule always opens a region (it never drops its marker).
  return fallbackRule.open(ctx, { text: opener, captures: {} })!;
}
