import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls } from "../core/render-helpers.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { hermesToolsBlock } from "../render/hermes-tools-block.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { hermesJsonCallRule } from "./shared-hermes-json-call-rule.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

/**
 * Baidu ERNIE 4.5 (and its Thinking variant): calls as `<tool_call>\n{"name", "arguments"}\n</tool_call>`,
 * reasoning in `<think>…</think>`, and the answer wrapped in `<response>…</response>` — markers as vLLM's
 * ernie45 tool parser reads them; the response tags are markup, not content. The catalogue reuses the Hermes
 * wording (the model's own template text was not available to quote).
 */
export const ernie45Protocol: ToolCallProtocol = {
  id: "ernie45",
  description: "ERNIE 4.5 <tool_call>{json}</tool_call> with <think> and <response>",
  resultRole: "tool",
  stopSequences: [],
  callStartMarkers: ["<tool_call>"],
  callBody: "json-call",
  renderCatalogue(tools, opts) {
    return [
      ...hermesToolsBlock(tools),
      "For each function call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:",
      "<tool_call>",
      '{"name": <function-name>, "arguments": <args-json-object>}',
      "</tool_call>",
      ...oneCallOnlyLines(opts, "Call at most one function per turn."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    return joinContentAndCalls(
      content,
      renderCallObjects(calls, { open: "<tool_call>\n", close: "\n</tool_call>" }),
    );
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    return createThinkingParser(
      [hermesJsonCallRule(), dropRule("</tool_call>"), dropRule("<response>"), dropRule("</response>")],
      opts,
    );
  },
};
