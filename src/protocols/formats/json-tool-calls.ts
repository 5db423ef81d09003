import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import {
  joinContentAndCalls,
  resultToJsonValue,
  resultToText,
  toolToFunctionJson,
} from "../core/render-helpers.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines } from "../render/catalogue-option-lines.js";
import { jsonBodyRules } from "./shared-json-body-rules.js";
import { createThinkingParser } from "./shared-thinking-parser.js";
import { envelopeCalls, isEnvelopeCallPath } from "./shared-tool-calls-envelope.js";

const EXAMPLE = '{"tool_calls": [{"name": "<tool name>", "arguments": {…}}]}';

function selectCalls(v: unknown): unknown[] | { error: string } {
  const calls = v && typeof v === "object" ? envelopeCalls(v as Record<string, unknown>) : undefined;
  return calls ?? { error: 'it must hold a "tool_calls" array' };
}

/**
 * `{"tool_calls": [{"name", "arguments"}]}` with results as `{"tool_results": [{"name", "content"|"error"}]}`
 * (reference 001): one JSON envelope for every provider.
 */
export const jsonToolCallsProtocol: ToolCallProtocol = {
  id: "json_tool_calls",
  description: '{"tool_calls":[…]} envelope, results as {"tool_results":[…]}',
  resultRole: "user",
  stopSequences: ['{"tool_results"'],
  callStartMarkers: ['{"tool_calls"'],
  callBody: "json-envelope",
  renderCatalogue(tools, opts) {
    return [
      "You can call these tools:",
      JSON.stringify(tools.map(toolToFunctionJson), null, 2),
      "",
      "To call tools, reply with a JSON object in exactly this format (no other text in that object):",
      '{"tool_calls": [{"name": "<tool name>", "arguments": {<arguments matching the tool\'s parameters>}}]}',
      opts?.parallel === false
        ? 'Put at most one call in "tool_calls".'
        : 'Put several calls in the "tool_calls" array when they are independent.',
      'The results come back as {"tool_results": [{"name": …, "content": …}]} (or "error"). Then answer the user in plain text.',
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    const env = { tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) };
    return joinContentAndCalls(content, JSON.stringify(env));
  },
  renderToolResults(results) {
    return JSON.stringify({
      tool_results: results.map((r) =>
        r.result.isError
          ? { id: r.callId, name: r.name, error: resultToText(r.result).replace(/^Error:\s*/, "") }
          : { id: r.callId, name: r.name, content: resultToJsonValue(r.result) },
      ),
    });
  },
  createParser(opts) {
    const rules = jsonBodyRules(['"tool_call', { alt: [['s"'], ['"']] }], {
      isCallPath: isEnvelopeCallPath,
      decode: jsonCallsDecoder(EXAMPLE, selectCalls),
      example: EXAMPLE,
      what: 'the "tool_calls" JSON',
    });
    return createThinkingParser(rules, opts);
  },
};
