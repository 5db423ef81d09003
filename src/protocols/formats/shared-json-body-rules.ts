import { type CallBodyConfig, CallBodyRegion, jsonScannerFactory } from "../core/call-body-region.js";
import type { PatternToken } from "../core/match-pattern.js";
import { jsonStartRules } from "../core/start-rules.js";
import type { EngineContext, StartRule } from "../core/stream-engine.js";

type MarkerlessBodyConfig = Omit<CallBodyConfig, "opener" | "fenced" | "onNonValue" | "createScanner">;

/**
 * Opens the region of a JSON body that starts without a marker. Since prose may hold such JSON, text that turns out
 * not to be a value goes back to the content (`onNonValue: "revert"`).
 */
export function markerlessJsonBody(
  config: MarkerlessBodyConfig,
): (ctx: EngineContext, opener: string, fenced: boolean) => CallBodyRegion {
  return (ctx, opener, fenced) =>
    new CallBodyRegion(ctx, {
      opener,
      fenced,
      onNonValue: "revert",
      createScanner: jsonScannerFactory,
      ...config,
    });
}

/**
 * Rules for a JSON body that starts without a marker — `{` then `head` (`"tool_calls"`, `"type": "tool_call"`,
 * `"name"`), bare or fenced (see markerlessJsonBody).
 */
export function jsonBodyRules(head: readonly PatternToken[], config: MarkerlessBodyConfig): StartRule[] {
  return jsonStartRules(head, markerlessJsonBody(config));
}
