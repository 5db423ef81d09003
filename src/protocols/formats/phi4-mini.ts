import { CallBodyRegion, jsonScannerFactory } from "../core/call-body-region.js";
import { callListOrProseDecoder } from "../core/call-list-or-prose.js";
import { dropRule } from "../core/reasoning-region.js";
import { toolToFunctionJson } from "../core/render-helpers.js";
import { taggedJsonCallRule } from "../core/start-rules.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines } from "../render/catalogue-option-lines.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const TOOL_CALL = "<|tool_call|>";
const TOOL_CALL_END = "<|/tool_call|>";
const TOOL = "<|tool|>";
const TOOL_END = "<|/tool|>";
const EXAMPLE = `${TOOL_CALL}{"name": "<function name>", "arguments": {"<param>": <value>}}${TOOL_CALL_END}`;

/**
 * Microsoft Phi-4-mini: tools listed in the system message inside `<|tool|>[…]<|/tool|>`, calls as
 * `<|tool_call|>{"name", "arguments"}<|/tool_call|>` (the special tokens of its tokenizer, as llama.cpp's template
 * renders them); the model also answers `functools[{…}, …]`, the shape vLLM's and SGLang's Phi-4-mini parsers read.
 */
export const phi4MiniProtocol: ToolCallProtocol = {
  id: "phi4_mini",
  description: "Phi-4-mini <|tool_call|>{name, arguments}<|/tool_call|> (and functools[…])",
  resultRole: "tool",
  stopSequences: ["<|tool_response|>", "<|end|>"],
  callStartMarkers: [TOOL_CALL, "functools["],
  callBody: "json-call",
  renderCatalogue(tools, opts) {
    return [
      "You are a helpful assistant with some tools.",
      `${TOOL}${JSON.stringify(tools.map(toolToFunctionJson))}${TOOL_END}`,
      `To use a tool, respond in this format: ${TOOL_CALL}{"name": "foo", "arguments": {"a": 1}}${TOOL_CALL_END}`,
      opts?.parallel === false
        ? "Call at most one tool per reply."
        : `To use several tools, write one ${TOOL_CALL}…${TOOL_CALL_END} block per call.`,
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const prose = content?.trim() ?? "";
    const rendered = renderCallObjects(calls, { open: TOOL_CALL, close: TOOL_CALL_END, separator: "" });
    return `${prose}${rendered}`;
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    return createThinkingParser(
      [
        taggedJsonCallRule(TOOL_CALL, TOOL_CALL_END, EXAMPLE, { onNonValue: "error" }),
        {
          first: "f",
          pattern: ["functools", { ws: true }, { mark: "body" }, "["],
          open: (ctx, m) =>
            new CallBodyRegion(ctx, {
              opener: m.text,
              valueStart: "[",
              onNonValue: "revert",
              startOnArguments: true,
              createScanner: jsonScannerFactory,
              isCallPath: (p) => p.length === 1 && typeof p[0] === "number",
              // `functools [1, 2]` in prose is not a call list.
              decode: callListOrProseDecoder(EXAMPLE, m.text),
              example: EXAMPLE,
              what: "the JSON list after functools",
            }),
        },
        dropRule(TOOL_CALL_END),
        dropRule("<|end|>"),
      ],
      opts,
      { strayClosers: [TOOL_CALL_END] },
    );
  },
};
