import type { ToolCallProtocol } from "./protocol.js";
import { getProtocol } from "./protocol-registry.js";
import type { ParseResult, ParserEvent, ParserOptions, ToolCall } from "./types.js";

/** Folds parser events into a result (content and reasoning trimmed at both ends). */
export function collectParseResult(events: readonly ParserEvent[]): ParseResult {
  const calls: ToolCall[] = [];
  const errors: ParseResult["errors"] = [];
  let content = "";
  let reasoning = "";
  let truncated = false;
  for (const ev of events) {
    switch (ev.type) {
      case "content":
        content += ev.text;
        break;
      case "reasoning":
        reasoning += ev.text;
        break;
      case "call-end":
        calls.push(ev.call);
        break;
      case "parse-error":
        errors.push({ message: ev.message, raw: ev.raw });
        break;
      case "truncated":
        truncated = true;
        break;
    }
  }
  return { calls, content: content.trim(), reasoning: reasoning.trim(), errors, truncated };
}

/** One-shot parse of a whole model output, through the same streaming parser. */
export function parseToolCalls(
  protocol: ToolCallProtocol | string,
  text: string,
  opts: ParserOptions = {},
): ParseResult {
  const p = typeof protocol === "string" ? getProtocol(protocol) : protocol;
  const parser = p.createParser(opts);
  return collectParseResult([...parser.push(text), ...parser.end()]);
}
