import { dropRule } from "../core/reasoning-region.js";
import { resultToText, toolToFunctionJson } from "../core/render-helpers.js";
import { taggedJsonCallRule } from "../core/start-rules.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const OPEN = "<TOOLCALL>";
const CLOSE = "</TOOLCALL>";
const EXAMPLE = `${OPEN}[{"name": "<tool name>", "arguments": {"<param>": <value>}}]${CLOSE}`;
/** The end-of-turn token of the template (`<SPECIAL_12>`): markup, never content. */
const END_OF_TURN = "<SPECIAL_12>";

/**
 * NVIDIA Nemotron Nano v2: one JSON list of `{"name", "arguments"}` objects inside `<TOOLCALL>…</TOOLCALL>`,
 * results back in the user turn as `<TOOL_RESPONSE>[…]</TOOL_RESPONSE>`, reasoning in `<think>` (the generation
 * prompt opens it unless `/no_think`: pass prefix `<think>`). Markers and wording from the model's chat template
 * (llama.cpp models/templates/NVIDIA-Nemotron-Nano-v2.jinja) and vLLM's nemotron_nano_v2 tool parser.
 */
export const nemotronNanoV2Protocol: ToolCallProtocol = {
  id: "nemotron_nano_v2",
  description: "NVIDIA Nemotron Nano v2 <TOOLCALL>[{name, arguments}]</TOOLCALL>",
  resultRole: "user",
  stopSequences: ["<TOOL_RESPONSE>", END_OF_TURN],
  callStartMarkers: [OPEN],
  callBody: "json-call",
  renderCatalogue(tools, opts) {
    return [
      "You can use the following tools to assist the user if required:",
      `<AVAILABLE_TOOLS>[${tools.map((t) => JSON.stringify(toolToFunctionJson(t))).join(", ")}]</AVAILABLE_TOOLS>`,
      "",
      "If you decide to call any tool(s), use the following format:",
      `${OPEN}[{"name": "tool_name1", "arguments": "tool_args1"}, {"name": "tool_name2", "arguments": "tool_args2"}]${CLOSE}`,
      "",
      "The user will execute tool-calls and return responses from tool(s) in this format:",
      '<TOOL_RESPONSE>[{"tool_response1"}, {"tool_response2"}]</TOOL_RESPONSE>',
      "",
      "Based on the tool responses, you can call additional tools if needed, correct tool calls if any errors are found, or just respond to the user.",
      ...oneCallOnlyLines(opts, "Call at most one tool per reply."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    const list = `${OPEN}[${renderCallObjects(calls, { separator: ", " })}]${CLOSE}`;
    const prose = content?.trim() ?? "";
    return prose === "" ? list : `${prose}\n\n${list}`;
  },
  renderToolResults(results) {
    return `<TOOL_RESPONSE>[${results.map((r) => resultToText(r.result)).join(", ")}]</TOOL_RESPONSE>`;
  },
  createParser(opts) {
    return createThinkingParser(
      [taggedJsonCallRule(OPEN, CLOSE, EXAMPLE), dropRule(CLOSE), dropRule(END_OF_TURN)],
      opts,
      { strayClosers: [CLOSE] },
    );
  },
};
