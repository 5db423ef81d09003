import { jsonValueScannerFactory } from "../core/json-value-scanner.js";
import type { PatternToken } from "../core/match-pattern.js";
import { dropRule } from "../core/reasoning-region.js";
import { toolToFunctionJson } from "../core/render-helpers.js";
import type { EngineContext, StartRule } from "../core/stream-engine.js";
import { SwallowGapRegion } from "../core/swallow-gap-region.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines } from "../render/catalogue-option-lines.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import type { ToolCall } from "../types.js";
import { namedArgumentsRegion } from "./shared-named-arguments-region.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

// DeepSeek's special tokens use fullwidth bars (U+FF5C) and U+2581 for spaces.
const CALLS_BEGIN = "<｜tool▁calls▁begin｜>";
const CALLS_END = "<｜tool▁calls▁end｜>";
const CALL_BEGIN = "<｜tool▁call▁begin｜>";
const CALL_END = "<｜tool▁call▁end｜>";
const SEP = "<｜tool▁sep｜>";
const EOS = "<｜end▁of▁sentence｜>";
const OUTPUTS_BEGIN = "<｜tool▁outputs▁begin｜>";
const OUTPUTS_END = "<｜tool▁outputs▁end｜>";
const OUTPUT_BEGIN = "<｜tool▁output▁begin｜>";
const OUTPUT_END = "<｜tool▁output▁end｜>";
/** Spellings of the calls-begin token that models (and llama.cpp's parser) are known to produce. */
const CALLS_BEGIN_ALIASES = [
  "<｜tool_calls_begin｜>",
  "<｜tool calls begin｜>",
  "<｜tool\\_calls\\_begin｜>",
  "<｜tool▁calls｜>",
];

const FENCE = "```";
const WS: PatternToken = { ws: true };

const R1_EXAMPLE = `${CALLS_BEGIN}${CALL_BEGIN}function${SEP}<function name>\n${FENCE}json\n{"<param>": <value>}\n${FENCE}${CALL_END}${CALLS_END}`;
const V31_EXAMPLE = `${CALLS_BEGIN}${CALL_BEGIN}<function name>${SEP}{"<param>": <value>}${CALL_END}${CALLS_END}`;

type Style = "r1" | "v3_1";

/**
 * One parser reads both DeepSeek call shapes, since checkpoints mix them:
 * R1 / V3 `<｜tool▁call▁begin｜>function<｜tool▁sep｜>NAME\n```json\n{…}\n```<｜tool▁call▁end｜>` and
 * V3.1 `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>{…}<｜tool▁call▁end｜>`. After the separator, a name means the
 * text before it was the call type (R1); a value means the text before it was the name (V3.1).
 */
function createDeepSeekParser(example: string) {
  return (opts?: Parameters<ToolCallProtocol["createParser"]>[0]) => {
    // The template puts `\n` between calls (R1): that gap is markup, not content.
    const argsRegion = (ctx: EngineContext, opener: string, name: string) =>
      new SwallowGapRegion(callRegion(ctx, opener, name), [CALL_BEGIN, CALLS_END]);
    const callRegion = (ctx: EngineContext, opener: string, name: string) =>
      namedArgumentsRegion(ctx, name, {
        opener,
        endMarker: CALL_END,
        valueStart: '{"',
        createScanner: jsonValueScannerFactory,
        example,
        what: `the arguments of ${name}`,
      });
    const callName = (captures: Record<string, string>) => captures.name ?? captures.head!;
    const head: PatternToken[] = [CALL_BEGIN, WS, { ident: "head" }, WS, SEP, WS];
    const rules: StartRule[] = [
      {
        // A call with nothing between the separator and the end token: no arguments.
        first: "<",
        pattern: [...head, { opt: [{ ident: "name" }, WS] }, CALL_END],
        open: (ctx, m) => {
          const name = callName(m.captures);
          const { index, id } = ctx.startCall(name);
          ctx.endCall(index, { id, name, arguments: {} }, m.text, false);
          return null;
        },
      },
      {
        first: "<",
        pattern: [...head, { alt: [[{ ident: "name" }, WS, { mark: "body" }], [{ mark: "body" }]] }],
        open: (ctx, m) => argsRegion(ctx, m.text, callName(m.captures)),
      },
      {
        // llama.cpp accepts R1 calls whose begin token was dropped.
        first: "f",
        pattern: ["function", SEP, WS, { ident: "name" }, WS, { mark: "body" }],
        open: (ctx, m) => argsRegion(ctx, m.text, m.captures.name!),
      },
      dropRule(CALLS_BEGIN),
      ...CALLS_BEGIN_ALIASES.map((t) => dropRule(t)),
      dropRule(CALLS_END),
      dropRule(CALL_END),
      dropRule(EOS),
    ];
    return createThinkingParser(rules, opts, { strayClosers: [CALLS_END, CALL_END] });
  };
}

function renderCall(style: Style, c: ToolCall): string {
  const args = JSON.stringify(c.arguments);
  return style === "r1"
    ? `${CALL_BEGIN}function${SEP}${c.name}\n${FENCE}json\n${args}\n${FENCE}${CALL_END}`
    : `${CALL_BEGIN}${c.name}${SEP}${args}${CALL_END}`;
}

function createDeepSeekProtocol(style: Style): ToolCallProtocol {
  const r1 = style === "r1";
  const example = r1 ? R1_EXAMPLE : V31_EXAMPLE;
  return {
    id: r1 ? "deepseek_r1" : "deepseek_v3_1",
    description: r1
      ? "DeepSeek R1/V3 <｜tool▁call▁begin｜>function<｜tool▁sep｜>name + ```json fenced arguments"
      : "DeepSeek V3.1 <｜tool▁call▁begin｜>name<｜tool▁sep｜>{json}<｜tool▁call▁end｜>",
    resultRole: "user",
    stopSequences: [OUTPUTS_BEGIN, OUTPUT_BEGIN, EOS],
    callStartMarkers: [CALLS_BEGIN, CALL_BEGIN],
    callBody: "json-arguments",
    renderCatalogue(tools, opts) {
      const descriptions = tools.map((t) => {
        const f = toolToFunctionJson(t);
        return `### ${f.name}\nDescription: ${f.description}\n\nParameters: ${JSON.stringify(f.parameters)}`;
      });
      const shape = r1
        ? `${CALLS_BEGIN}${CALL_BEGIN}function${SEP}tool_call_name\n${FENCE}json\ntool_call_arguments\n${FENCE}${CALL_END}{{additional_tool_calls}}${CALLS_END}`
        : `${CALLS_BEGIN}${CALL_BEGIN}tool_call_name${SEP}tool_call_arguments${CALL_END}{{additional_tool_calls}}${CALLS_END}`;
      return [
        "## Tools",
        "You have access to the following tools:",
        "",
        ...descriptions.flatMap((d) => [d, ""]),
        "IMPORTANT: ALWAYS adhere to this exact format for tool use:",
        shape,
        "",
        "Where:",
        "- `tool_call_name` must be an exact match to one of the available tools",
        "- `tool_call_arguments` must be valid JSON that strictly follows the tool's Parameters Schema",
        opts?.parallel === false
          ? "- Make at most one tool call per reply"
          : r1
            ? "- For multiple tool calls, put each on its own line between the begin and end tokens"
            : "- For multiple tool calls, chain them directly without separators or spaces",
        ...extraInstructionLines(opts),
      ].join("\n");
    },
    renderAssistantTurn({ content, calls }) {
      const prose = content?.trim() ?? "";
      if (calls.length === 0) return prose;
      const rendered = calls.map((c) => renderCall(style, c)).join(r1 ? "\n" : "");
      return `${prose}${CALLS_BEGIN}${rendered}${CALLS_END}`;
    },
    renderToolResults(results) {
      const frame = { open: OUTPUT_BEGIN, close: OUTPUT_END, separator: r1 ? "\n" : "" };
      const outputs = renderResultTexts(results, frame);
      return r1 ? `${OUTPUTS_BEGIN}${outputs}${OUTPUTS_END}` : outputs;
    },
    createParser: createDeepSeekParser(example),
  };
}

/** DeepSeek R1 (and V3-0324): fenced JSON arguments after `function<｜tool▁sep｜>name`, `<think>` reasoning. */
export const deepseekR1Protocol: ToolCallProtocol = createDeepSeekProtocol("r1");

/** DeepSeek V3.1: `name<｜tool▁sep｜>{json}` calls; `<think>` reasoning when thinking is on. */
export const deepseekV31Protocol: ToolCallProtocol = createDeepSeekProtocol("v3_1");
