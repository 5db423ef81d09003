import { jsonValueScannerFactory } from "../core/json-value-scanner.js";
import type { PatternToken } from "../core/match-pattern.js";
import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls } from "../core/render-helpers.js";
import { taggedJsonCallRule } from "../core/start-rules.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { functionToolJson } from "../render/function-tool-json.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { namedArgumentsRegion } from "./shared-named-arguments-region.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const OPEN = "<tool_calls>";
const CLOSE = "</tool_calls>";
const EXAMPLE = `${OPEN}[{"name": "<tool name>", "arguments": {"<param>": <value>}}]${CLOSE}`;
const WS: PatternToken = { ws: true };

/**
 * Tencent Hunyuan-A13B: one JSON list of `{"name", "arguments"}` objects in `<tool_calls>…</tool_calls>`
 * (vLLM's hunyuan_a13b tool parser), reasoning in `<think>…</think>` and the answer wrapped in
 * `<answer>…</answer>` (vLLM's hunyuan_a13b reasoning parser) — the answer tags are markup, not content.
 * Also read: the nested form ms-swift's `hunyuan_hermes` agent template writes for Hunyuan models,
 * `<tool_calls><tool_call>name\n```json\n{…}\n```</tool_call></tool_calls>`. The catalogue wording is toolbridge's
 * own: the model's template text was not available to quote.
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
        // The wrapper of the nested form carries nothing; the JSON-list form opens with the same tag.
        { first: "<", pattern: [OPEN, WS, { mark: "body" }, "<tool_call>"], open: () => null },
        {
          first: "<",
          // `name` then a fenced JSON object, so prose that mentions the tag stays prose.
          pattern: ["<tool_call>", WS, { ident: "name" }, WS, { mark: "body" }, "```"],
          open: (ctx, m) =>
            namedArgumentsRegion(ctx, m.captures.name!, {
              opener: m.text,
              endMarker: "</tool_call>",
              valueStart: "{",
              createScanner: jsonValueScannerFactory,
              example: EXAMPLE,
              what: `the arguments of ${m.captures.name}`,
            }),
        },
        taggedJsonCallRule(OPEN, CLOSE, EXAMPLE),
        dropRule(CLOSE),
        dropRule("</tool_call>"),
        dropRule("<answer>"),
        dropRule("</answer>"),
      ],
      opts,
      { strayClosers: [CLOSE, "</tool_call>"] },
    );
  },
};
