import { CallBodyRegion, type DecodeOutcome } from "../core/call-body-region.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import { PythonScanner } from "../core/python-scanner.js";
import { dropRule } from "../core/reasoning-region.js";
import { resultToText } from "../core/render-helpers.js";
import type { EngineContext } from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { functionToolJson } from "../render/function-tool-json.js";
import { renderPythonCall } from "../render/python-call.js";
import { decodePythonCalls } from "./shared-python-calls-decoder.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const START = "<|tool_call_start|>";
const END = "<|tool_call_end|>";
const EXAMPLE = `${START}[get_weather(location="Paris")]${END}`;

const decodeJson = jsonCallsDecoder(EXAMPLE);

/**
 * The body between the sentinels: LFM2's own pythonic list (`[f(a=1), g(b="x")]`, read by the literal parser,
 * nothing evaluated), or the JSON list `[{"name", "arguments"}]` that llama.cpp's LFM2 template writes.
 */
function decodeBody(raw: string, ctx: EngineContext): DecodeOutcome {
  const t = raw.trim();
  return /^\[\s*\{/.test(t) || t.startsWith("{") ? decodeJson(t) : decodePythonCalls(t, ctx);
}

/**
 * LiquidAI LFM2 / LFM2.5: `<|tool_call_start|>[get_weather(location="Paris")]<|tool_call_end|>`, tools listed as
 * JSON in the system prompt, results in the `tool` role between `<|tool_response_start|>` and
 * `<|tool_response_end|>`, `<think>` reasoning (LFM2.5 thinking models). Markers from the models' chat templates
 * (llama.cpp models/templates/LFM2.5-8B-A1B.jinja and llama-cpp-lfm2.jinja) and vLLM's lfm2 tool parser.
 */
export const lfm2Protocol: ToolCallProtocol = {
  id: "lfm2",
  description: "LFM2 <|tool_call_start|>[f(a=1)]<|tool_call_end|> pythonic calls",
  resultRole: "tool",
  stopSequences: ["<|im_end|>"],
  callStartMarkers: [START],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return [
      `List of tools: <|tool_list_start|>[${tools.map((t) => JSON.stringify(functionToolJson(t))).join(", ")}]<|tool_list_end|>`,
      "",
      `To call tools, write a Python list of calls between ${START} and ${END}, e.g. ${EXAMPLE}`,
      ...oneCallOnlyLines(opts, "Call at most one tool per reply."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    // The template writes the call block straight before the text of the turn.
    if (calls.length === 0) return content ?? "";
    return `${START}[${calls.map(renderPythonCall).join(", ")}]${END}${content?.trim() ?? ""}`;
  },
  renderToolResults(results) {
    return results
      .map((r) => `<|tool_response_start|>${resultToText(r.result)}<|tool_response_end|>`)
      .join("\n");
  },
  createParser(opts) {
    return createThinkingParser(
      [
        dropRule("<|im_end|>"),
        dropRule(END),
        {
          first: "<",
          pattern: [START],
          open: (ctx, m) =>
            new CallBodyRegion(ctx, {
              opener: m.text,
              endMarker: END,
              valueStart: "[{",
              onNonValue: "error",
              createScanner: (hooks, stop) => new PythonScanner(hooks, stop),
              isCallPath: () => false,
              decode: decodeBody,
              example: EXAMPLE,
              what: `the call list after ${START}`,
            }),
        },
      ],
      opts,
      { strayClosers: [END] },
    );
  },
};
