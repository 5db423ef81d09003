import { CallBodyRegion, jsonScannerFactory } from "../core/call-body-region.js";
import { callListOrProseDecoder } from "../core/call-list-or-prose.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import type { PatternToken } from "../core/match-pattern.js";
import { dropRule, ReasoningRegion } from "../core/reasoning-region.js";
import { joinContentAndCalls } from "../core/render-helpers.js";
import type { EngineContext } from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines } from "../render/catalogue-option-lines.js";
import { functionToolJson } from "../render/function-tool-json.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const TOOL_CALL = "<|tool_call|>";
const EXAMPLE = `${TOOL_CALL}[{"name": "<function name>", "arguments": {"<param>": <value>}}]`;
/** Granite 3.2 writes its reasoning between these phrases when thinking is on. */
const THOUGHTS = "Here is my thought process:";
const RESPONSE = "Here is my response:";

const WS: PatternToken = { ws: true };

const decodeCalls = jsonCallsDecoder(EXAMPLE);

/**
 * IBM Granite 3.x: `<|tool_call|>` followed by a JSON list of `{"name", "arguments"}` (Granite 3.1 also writes the
 * plain string `<tool_call>`), results in the `tool_response` role. Reasoning: `<think>…</think>` with the answer in
 * `<response>…</response>` (3.3), or "Here is my thought process: … Here is my response: …" (3.2).
 */
export const graniteProtocol: ToolCallProtocol = {
  id: "granite",
  description: "IBM Granite <|tool_call|>[{name, arguments}]",
  resultRole: "tool",
  stopSequences: ["<|end_of_text|>"],
  callStartMarkers: [TOOL_CALL],
  callBody: "json-envelope",
  renderCatalogue(tools, opts) {
    return [
      "You are a helpful assistant with access to the following tools. When a tool is required to answer the user's query, respond only with <|tool_call|> followed by a JSON list of tools used. If a tool does not exist in the provided list of tools, notify the user that you do not have the ability to fulfill the request.",
      opts?.parallel === false
        ? "Use at most one tool per reply."
        : "List several tools in the one JSON list when they are independent.",
      `Example: ${EXAMPLE}`,
      ...extraInstructionLines(opts),
      "",
      "Available tools:",
      JSON.stringify(tools.map(functionToolJson), null, 4),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content?.trim() ?? "";
    const list = JSON.stringify(calls.map((c) => ({ name: c.name, arguments: c.arguments })));
    return joinContentAndCalls(content, `${TOOL_CALL}${list}`);
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    const listRegion = (
      ctx: EngineContext,
      opener: string,
      extra: Partial<ConstructorParameters<typeof CallBodyRegion>[1]>,
    ) =>
      new CallBodyRegion(ctx, {
        opener,
        valueStart: "[{",
        onNonValue: "error",
        createScanner: jsonScannerFactory,
        isCallPath: (p) => p.length === 0 || (p.length === 1 && typeof p[0] === "number"),
        decode: decodeCalls,
        example: EXAMPLE,
        what: `the JSON list after ${TOOL_CALL}`,
        ...extra,
      });
    const bareHead: PatternToken[] = [{ mark: "body" }, "[", WS, "{", WS, '"name"'];
    return createThinkingParser(
      [
        dropRule("<response>"),
        dropRule("</response>"),
        { first: "H", pattern: [THOUGHTS], open: (ctx) => new ReasoningRegion(ctx, RESPONSE) },
        { first: "<", pattern: [TOOL_CALL], open: (ctx, m) => listRegion(ctx, m.text, {}) },
        {
          // Granite 3.1 writes the tag as plain text and may close it.
          first: "<",
          pattern: ["<tool_call>"],
          open: (ctx, m) => listRegion(ctx, m.text, { closer: "</tool_call>", onNonValue: "revert" }),
        },
        {
          // A bare call list, as Granite 3.0 sometimes answers without the token.
          first: "[",
          pattern: bareHead,
          open: (ctx, m) =>
            listRegion(ctx, m.text, {
              onNonValue: "revert",
              startOnArguments: true,
              decode: callListOrProseDecoder(EXAMPLE),
            }),
        },
        {
          first: "`",
          pattern: ["```", { letters: true }, WS, ...bareHead],
          open: (ctx, m) =>
            listRegion(ctx, m.text, {
              onNonValue: "revert",
              startOnArguments: true,
              fenced: true,
              decode: callListOrProseDecoder(EXAMPLE, m.text),
            }),
        },
        dropRule("<|end_of_text|>"),
      ],
      opts,
    );
  },
};
