import { CallBodyRegion, type DecodedItem, jsonScannerFactory } from "../core/call-body-region.js";
import { decodeArguments } from "../core/decode-call-object.js";
import { jsonCallsDecoder } from "../core/json-call-decoder.js";
import { dropRule, reasoningPrefix, reasoningRule } from "../core/reasoning-region.js";
import { resultToJsonValue, toolToFunctionJson } from "../core/render-helpers.js";
import { StreamParser } from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";

const PREFIX = "<|tools_prefix|>";
const SUFFIX = "<|tools_suffix|>";
const INNER_PREFIX = "<|inner_prefix|>";
const INNER_SUFFIX = "<|inner_suffix|>";
const ASSISTANT_END = "<|assistant_end|>";
const EXAMPLE = `${PREFIX}[{"<tool name>": {"<param>": <value>}}]${SUFFIX}`;

/** `{"get_weather": {"city": "Paris"}}` — one key, the tool's name, whose value is the arguments. */
function apertusCall(value: unknown): DecodedItem {
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { kind: "error", message: `each call must be a JSON object; send the calls as ${EXAMPLE}` };
  const entries = Object.entries(value);
  if (entries.length !== 1)
    return {
      kind: "error",
      message: `each call must be an object with exactly one key, the tool name; send the calls as ${EXAMPLE}`,
    };
  const [name, raw] = entries[0]!;
  const args = decodeArguments(raw);
  if (!args.ok)
    return {
      kind: "error",
      message: `the arguments of "${name}" ${args.error}; send the calls as ${EXAMPLE}`,
    };
  return { kind: "call", name, arguments: args.value, repaired: args.repaired };
}

const decode = jsonCallsDecoder(EXAMPLE, (v) => (Array.isArray(v) ? v : [v]).map(apertusCall));

/**
 * Swiss AI Apertus: `<|tools_prefix|>[{"get_weather": {"city": "Paris"}}, …]<|tools_suffix|>` — a JSON list of
 * one-key objects, name → arguments; reasoning ("deliberation") in `<|inner_prefix|>…<|inner_suffix|>`; the turn
 * ends with `<|assistant_end|>`; tool outputs follow the calls as a JSON list. Tokens from Apertus' tokenizer and
 * the swiss-ai/apertus_format spec; call shape as vLLM's apertus parser and llama.cpp's apertus format read it.
 */
export const apertusProtocol: ToolCallProtocol = {
  id: "apertus",
  description: 'Apertus <|tools_prefix|>[{"name": {args}}]<|tools_suffix|>',
  resultRole: "tool",
  stopSequences: [ASSISTANT_END],
  callStartMarkers: [PREFIX],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return [
      "Tool Capabilities:",
      ...tools.map((t) => JSON.stringify(toolToFunctionJson(t))),
      "",
      `To call tools, write one JSON list of calls, each an object from the tool name to its arguments, between ${PREFIX} and ${SUFFIX}:`,
      `${PREFIX}[{"tool_name1": {"arg1": "value1"}}, {"tool_name2": {"arg2": "value2"}}]${SUFFIX}`,
      ...oneCallOnlyLines(opts, "Call at most one tool per reply."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    const list = `${PREFIX}${JSON.stringify(calls.map((c) => ({ [c.name]: c.arguments })))}${SUFFIX}`;
    const prose = content?.trim() ?? "";
    return prose === "" ? list : `${prose}\n${list}`;
  },
  renderToolResults(results) {
    return JSON.stringify(results.map((r) => resultToJsonValue(r.result)));
  },
  createParser(opts) {
    return new StreamParser(
      {
        rules: [
          reasoningRule(INNER_PREFIX, INNER_SUFFIX),
          dropRule(INNER_SUFFIX),
          reasoningRule(),
          dropRule("</think>"),
          dropRule(ASSISTANT_END),
          dropRule(SUFFIX),
          {
            first: "<",
            pattern: [PREFIX],
            open: (ctx, m) =>
              new CallBodyRegion(ctx, {
                opener: m.text,
                endMarker: SUFFIX,
                valueStart: "[{",
                onNonValue: "error",
                createScanner: jsonScannerFactory,
                isCallPath: () => false,
                decode,
                example: EXAMPLE,
                what: `the JSON list after ${PREFIX}`,
              }),
          },
        ],
        initialRegion: (ctx, prefix) =>
          reasoningPrefix(INNER_PREFIX, INNER_SUFFIX)(ctx, prefix) ?? reasoningPrefix()(ctx, prefix),
      },
      opts,
    );
  },
};
