import type { DecodedItem } from "../core/call-body-region.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import { resultToJsonValue, toolToFunctionJson } from "../core/render-helpers.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines } from "../render/catalogue-option-lines.js";
import { jsonBodyRules } from "./shared-json-body-rules.js";
import { createThinkingParser } from "./shared-thinking-parser.js";
import { envelopeCalls, isEnvelopeCallPath } from "./shared-tool-calls-envelope.js";

const EXAMPLE = '{"tool_calls": [{"name": "<tool name>", "arguments": {…}}]}';

function select(v: unknown): unknown[] | DecodedItem[] | { error: string } {
  const o = v as Record<string, unknown> | null;
  if (!o || typeof o !== "object" || Array.isArray(o)) return { error: "it must be a JSON object" };
  const calls = envelopeCalls(o);
  if (calls) return calls;
  if ("response" in o) {
    const r = o.response;
    return [{ kind: "content", text: typeof r === "string" ? r : JSON.stringify(r) }];
  }
  return { error: 'it must hold "tool_calls", "tool_call" or "response"' };
}

/**
 * llama.cpp's generic format for models without a native one: the whole reply is one JSON object,
 * `{"tool_calls": [...]}` / `{"tool_call": {...}}` to call tools or `{"response": "..."}` to answer.
 */
export const llamacppGenericProtocol: ToolCallProtocol = {
  id: "llamacpp_generic",
  description: 'whole reply is {"tool_call"|"tool_calls"|"response"} (llama.cpp generic)',
  resultRole: "tool",
  stopSequences: [],
  callStartMarkers: ["{"],
  callBody: "json-envelope",
  renderCatalogue(tools, opts) {
    const parallel = opts?.parallel !== false;
    const callShape = parallel
      ? '{"tool_calls": [{"name": "<tool name>", "arguments": {…}, "id": "<optional id>"}]}'
      : '{"tool_call": {"name": "<tool name>", "arguments": {…}}}';
    return [
      "You have access to these tools:",
      JSON.stringify(tools.map(toolToFunctionJson), null, 2),
      "",
      `Respond in JSON format, either with \`${parallel ? "tool_calls" : "tool_call"}\` (a request to call tools) or with \`response\` (your reply to the user's request):`,
      callShape,
      '{"response": "<your answer>"}',
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return JSON.stringify({ response: content ?? "" });
    return JSON.stringify({
      tool_calls: calls.map((c) => ({ name: c.name, arguments: c.arguments, id: c.id })),
    });
  },
  renderToolResults(results) {
    return results
      .map((r) =>
        JSON.stringify({
          tool_response: { tool: r.name, id: r.callId, content: resultToJsonValue(r.result) },
        }),
      )
      .join("\n");
  },
  createParser(opts) {
    const rules = jsonBodyRules(['"', { alt: [["tool_calls"], ["tool_call"], ["response"]] }, '"'], {
      isCallPath: isEnvelopeCallPath,
      decode: jsonCallsDecoder(EXAMPLE, select),
      example: EXAMPLE,
      what: "the JSON reply",
    });
    return createThinkingParser(rules, opts);
  },
};
