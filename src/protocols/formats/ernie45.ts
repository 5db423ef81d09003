import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls } from "../core/render-helpers.js";
import type { ToolCallProtocol } from "../protocol.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { hermesProtocol } from "./hermes.js";
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
  // The same catalogue as Hermes: ERNIE 4.5 reads the Hermes wording (its own chat template was not found).
  renderCatalogue: hermesProtocol.renderCatalogue,
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
      { strayClosers: ["</tool_call>"] },
    );
  },
};
