import { type CallBodyConfig, CallBodyRegion, jsonScannerFactory } from "../core/call-body-region.js";
import type { PatternToken } from "../core/match-pattern.js";
import { jsonStartRules } from "../core/start-rules.js";
import type { StartRule } from "../core/stream-engine.js";

/**
 * Rules for a JSON body that starts without a marker — `{` then `head` (`"tool_calls"`, `"type": "tool_call"`,
 * `"name"`), bare or fenced. Since prose may hold such JSON, text that turns out not to be a value goes back to
 * the content (`onNonValue: "revert"`).
 */
export function jsonBodyRules(
  head: readonly PatternToken[],
  config: Omit<CallBodyConfig, "opener" | "fenced" | "onNonValue" | "createScanner">,
): StartRule[] {
  return jsonStartRules(
    head,
    (ctx, opener, fenced) =>
      new CallBodyRegion(ctx, {
        opener,
        fenced,
        onNonValue: "revert",
        createScanner: jsonScannerFactory,
        ...config,
      }),
  );
}
