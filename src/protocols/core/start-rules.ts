import { type CallBodyConfig, CallBodyRegion, jsonScannerFactory } from "./call-body-region.js";
import { jsonCallsDecoder } from "./json-call-decoder.js";
import type { JsonPath } from "./json-scanner.js";
import type { PatternToken } from "./match-pattern.js";
import type { EngineContext, StartRule } from "./stream-engine.js";

const WS: PatternToken = { ws: true };

/**
 * Rules for a JSON body that starts without a marker: `{` then `head` (e.g. `"tool_calls"`), bare or inside
 * a code fence. The head is look-ahead only; the body is read from the `{`.
 */
export function jsonStartRules(
  head: readonly PatternToken[],
  open: (ctx: EngineContext, opener: string, fenced: boolean) => CallBodyRegion,
): StartRule[] {
  return [
    {
      first: "{",
      pattern: [{ mark: "body" }, "{", WS, ...head],
      open: (ctx, m) => open(ctx, m.text, false),
    },
    {
      first: "`",
      pattern: ["```", { letters: true }, WS, { mark: "body" }, "{", WS, ...head],
      open: (ctx, m) => open(ctx, m.text, true),
    },
  ];
}

/** `<open>{json call}</close>` — the Hermes/`<tool>` family: explicit tags around one or more call objects. */
export function taggedJsonCallRule(
  openTag: string,
  closeTag: string,
  example: string,
  overrides: Partial<CallBodyConfig> = {},
): StartRule {
  const what = `the JSON inside ${openTag}`;
  // Built once per rule, not per call.
  const isCallPath = (p: JsonPath) => p.length === 0 || (p.length === 1 && typeof p[0] === "number");
  const decode = jsonCallsDecoder(example);
  return {
    first: openTag[0]!,
    pattern: [openTag],
    open: (ctx, m) =>
      new CallBodyRegion(ctx, {
        opener: m.text,
        endMarker: closeTag,
        multiple: true,
        separators: ",",
        onNonValue: "revert",
        createScanner: jsonScannerFactory,
        isCallPath,
        decode,
        example,
        what,
        ...overrides,
      }),
  };
}
