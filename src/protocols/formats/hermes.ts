import { joinContentAndCalls } from "../core/render-helpers.js";
import { taggedJsonCallRule } from "../core/start-rules.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { hermesToolsBlock } from "../render/hermes-tools-block.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { renderResultTexts, TOOL_RESPONSE_BLOCK } from "../render/render-result-texts.js";
import { bareJsonCallRules } from "./shared-bare-json-call-rules.js";
import { functionTagRule } from "./shared-function-tag-rule.js";
import { HERMES_CALL_EXAMPLE, hermesJsonCallRule } from "./shared-hermes-json-call-rule.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

/**
 * Hermes / Qwen 2.5 / Qwen 3: `<tool_call>\n{"name": …, "arguments": {…}}\n</tool_call>`, results in
 * `<tool_response>` blocks, `<think>` reasoning (Qwen 3).
 */
export const hermesProtocol: ToolCallProtocol = {
  id: "hermes",
  description: "Hermes/Qwen <tool_call>{json}</tool_call> tags",
  resultRole: "user",
  stopSequences: ["<tool_response>"],
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
    const rendered = renderCallObjects(calls, { open: "<tool_call>\n", close: "\n</tool_call>" });
    return joinContentAndCalls(content, rendered);
  },
  renderToolResults(results) {
    return renderResultTexts(results, TOOL_RESPONSE_BLOCK);
  },
  createParser(opts) {
    return createThinkingParser(
      [
        hermesJsonCallRule(),
        // What llama.cpp also reads from Hermes-family models: `<function=name>{…}</function>`, the call
        // object in other wrappers, and — when tools are offered — a bare or fenced call object. Each gives
        // text that turns out to be no call back as content.
        functionTagRule(),
        ...["tools", "tool", "response", "json"].map((t) =>
          taggedJsonCallRule(`<${t}>`, `</${t}>`, HERMES_CALL_EXAMPLE, { startOnArguments: true }),
        ),
        ...(opts?.tools?.length ? bareJsonCallRules(HERMES_CALL_EXAMPLE) : []),
      ],
      opts,
      { strayClosers: ["</tool_call>"] },
    );
  },
};
