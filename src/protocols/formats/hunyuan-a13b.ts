import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls } from "../core/render-helpers.js";
import { taggedJsonCallRule } from "../core/start-rules.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { functionToolJson } from "../render/function-tool-json.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const OPEN = "<tool_calls>";
const CLOSE = "</tool_calls>";
const EXAMPLE = `${OPEN}[{"name": "<tool name>", "arguments": {"<param>": <value>}}]${CLOSE}`;

/**
 * Tencent Hunyuan-A13B: one JSON list of `{"name", "arguments"}` objects in `<tool_calls>…</tool_calls>`
 * (vLLM's hunyuan_a13b tool parser), reasoning in `<think>…</think>` and the answer wrapped in
 * `<answer>…</answer>` (vLLM's hunyuan_a13b reasoning parser) — the answer tags are markup, not content.
 * The catalogue wording is toolbridge's own: the model's template text was not available to quote.
 */
export const hunyuanA13bProtocol: ToolCallProtocol = {
  id: "hunyuan_a13b",
  description: "Hunyuan-A13B <tool_calls>[{name, arguments}]</tool_calls>",
  resultRole: "tool",
  stopSequences: [],
  callStartMarkers: [OPEN],
  callBody: "json-call",
  renderCatalogue(tools, opts) {
    return [
      "You can call the following tools (OpenAI function JSON):",
      ...tools.map((t) => JSON.stringify(functionToolJson(t))),
      "",
      `To call tools, write one JSON list of calls inside ${OPEN}${CLOSE}:`,
      `${OPEN}[{"name": "tool_name1", "arguments": {"arg1": "value1"}}, {"name": "tool_name2", "arguments": {}}]${CLOSE}`,
      ...oneCallOnlyLines(opts, "Call at most one tool per reply."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    return joinContentAndCalls(content, `${OPEN}[${renderCallObjects(calls, { separator: ", " })}]${CLOSE}`);
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    return createThinkingParser(
      [
        taggedJsonCallRule(OPEN, CLOSE, EXAMPLE),
        dropRule(CLOSE),
        dropRule("<answer>"),
        dropRule("</answer>"),
      ],
      opts,
    );
  },
};
