import type { PatternToken } from "../core/match-pattern.js";
import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls, resultToText } from "../core/render-helpers.js";
import { taggedJsonCallRule } from "../core/start-rules.js";
import type { StartRule } from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { functionToolJson } from "../render/function-tool-json.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { markerlessJsonBody } from "./shared-json-body-rules.js";
import { jsonCallOrProseDecoder } from "./shared-json-call-or-prose-decoder.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const EXAMPLE = '[{"name": "tool_call_name", "arguments": {"arg1": "value1", "arg2": "value2"}}]';
const WS: PatternToken = { ws: true };

/**
 * The markerless list (`[{"name": …, "arguments": …}, …]`), bare or in a code fence. It may be prose that
 * quotes JSON, so call-start waits for the arguments and a list without any arguments goes back as content.
 */
function callListRules(): StartRule[] {
  const open = markerlessJsonBody({
    startOnArguments: true,
    isCallPath: (p) => p.length === 0 || (p.length === 1 && typeof p[0] === "number"),
    decode: jsonCallOrProseDecoder(EXAMPLE),
    example: EXAMPLE,
    what: "the JSON call list",
  });
  const list: PatternToken[] = [{ mark: "body" }, "[", WS, "{", WS, { alt: [['"name"'], ["'name'"]] }];
  return [
    { first: "[", pattern: list, open: (ctx, m) => open(ctx, m.text, false) },
    {
      first: "`",
      pattern: ["```", { letters: true }, WS, ...list],
      open: (ctx, m) => open(ctx, m.text, true),
    },
  ];
}

/**
 * Salesforce xLAM (xLAM-2 fc-r, Llama-xLAM): calls are one JSON list `[{"name", "arguments"}, …]` with no
 * marker; the model also wraps it in a ```` ```json ```` fence or `<tool_call>` tags, which vLLM's xlam parser
 * reads too. `<think>` reasoning is honoured. Catalogue wording from xLAM-2's chat template (the same text BFCL's
 * Salesforce handler writes); results go back in the `tool` role as text.
 */
export const xlamProtocol: ToolCallProtocol = {
  id: "xlam",
  description: 'Salesforce xLAM [{"name", "arguments"}] JSON call list',
  resultRole: "tool",
  stopSequences: ["<|eot_id|>"],
  callStartMarkers: ['[{"name"'],
  callBody: "json-call",
  renderCatalogue(tools, opts) {
    return [
      "You have access to a set of tools. When using tools, make calls in a single JSON array: ",
      "",
      '[{"name": "tool_call_name", "arguments": {"arg1": "value1", "arg2": "value2"}}, ... (additional parallel tool calls as needed)]',
      "",
      "If no tool is suitable, state that explicitly. If the user's input lacks required parameters, ask for clarification. Do not interpret or respond until tool results are returned. Once they are available, process them or make additional calls if needed. For tasks that don't require tools, such as casual conversation or general advice, respond directly in plain text. The available tools are:",
      "",
      JSON.stringify(tools.map(functionToolJson), null, 2),
      ...oneCallOnlyLines(opts, "Make at most one tool call per reply."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    return joinContentAndCalls(content, `[${renderCallObjects(calls, { separator: ", " })}]`);
  },
  renderToolResults(results) {
    return results.map((r) => resultToText(r.result)).join("\n");
  },
  createParser(opts) {
    return createThinkingParser(
      [
        dropRule("<|eot_id|>"),
        taggedJsonCallRule("<tool_call>", "</tool_call>", EXAMPLE),
        dropRule("</tool_call>"),
        ...callListRules(),
      ],
      opts,
    );
  },
};
