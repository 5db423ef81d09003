import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls } from "../core/render-helpers.js";
import type { ToolCallProtocol } from "../protocol.js";
import { functionToolJson } from "../render/function-tool-json.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { bareJsonCallRules } from "./shared-bare-json-call-rules.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const EXAMPLE = '{"name": "<function name>", "parameters": {<argument name>: <value>}}';

/**
 * Llama 3.1–3.3 JSON tool calling: the reply is `{"name": …, "parameters": {…}}` (optionally after
 * `<|python_tag|>`, several separated by `;`); results come back in the `ipython` role.
 * An object with a name but no parameters is prose, not a call.
 */
export const llama3JsonProtocol: ToolCallProtocol = {
  id: "llama3_json",
  description: 'Llama 3.x {"name", "parameters"} JSON calls',
  resultRole: "tool",
  stopSequences: ["<|eom_id|>", "<|eot_id|>"],
  callStartMarkers: ['{"name"', "<|python_tag|>"],
  callBody: "json-call",
  renderCatalogue(tools, opts) {
    return [
      "Given the following functions, please respond with a JSON for a function call with its proper arguments that best answers the given prompt.",
      "",
      'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}. Do not use variables.',
      ...(opts?.parallel === false ? [] : ["To call several functions, write one JSON object per line."]),
      "",
      ...tools.map((t) => JSON.stringify(functionToolJson(t), null, 4)),
      ...(opts?.extraInstructions ? ["", opts.extraInstructions] : []),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    return joinContentAndCalls(content, renderCallObjects(calls, { argumentsKey: "parameters" }));
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    return createThinkingParser(
      [
        dropRule("<|python_tag|>"),
        dropRule("<|eom_id|>"),
        dropRule("<|eot_id|>"),
        ...bareJsonCallRules(EXAMPLE),
      ],
      opts,
    );
  },
};
