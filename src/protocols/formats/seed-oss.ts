import type { Tool } from "@modelcontextprotocol/server";
import { dropRule, ReasoningRegion, reasoningRule } from "../core/reasoning-region.js";
import { StreamParser } from "../core/stream-engine.js";
import { cleanAttributeName, type TaggedCallSyntax } from "../core/tagged-call-region.js";
import { encodeTextValue } from "../core/text-value-codec.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { taggedSectionRules } from "./shared-tagged-section-rules.js";

const SECTION_OPEN = "<seed:tool_call>";
const SECTION_CLOSE = "</seed:tool_call>";
const THINK_OPEN = "<seed:think>";
const THINK_CLOSE = "</seed:think>";
/** Opens the thinking of a zero-budget generation prompt (`<seed:think><seed:cot_budget_reflect>`). */
const BUDGET_OPEN = "<seed:cot_budget_reflect>";
const EOS = "<seed:eos>";
const EXAMPLE = `${SECTION_OPEN}\n<function=example_function_name>\n<parameter=example_parameter_1>value_1</parameter>\n</function>\n${SECTION_CLOSE}`;

/** vLLM's Seed-OSS parser drops one newline after the opening and one before the closing parameter tag. */
function unwrapValue(raw: string): string {
  let v = raw;
  if (v.startsWith("\n")) v = v.slice(1);
  if (v.endsWith("\n")) v = v.slice(0, -1);
  return v;
}

const SYNTAX: TaggedCallSyntax = {
  sectionOpen: SECTION_OPEN,
  sectionClose: SECTION_CLOSE,
  callOpen: { prefix: "<function=", end: ">", clean: cleanAttributeName },
  callClose: "</function>",
  paramOpen: { prefix: "<parameter=", end: ">", clean: cleanAttributeName },
  paramClose: "</parameter>",
  unwrapValue,
  // vLLM's Seed-OSS parser, like its Qwen3-Coder one, keeps a value without a schema as the text it is.
  untypedValues: "text",
  example: EXAMPLE,
  what: `the ${SECTION_OPEN} block`,
};

type Schema = { type?: unknown; description?: unknown };

/** The template's Python-ish type names (`py_type`). */
function pyType(t: unknown): string {
  if (t === "string") return "str";
  if (t === "number" || t === "integer") return "int";
  if (t === "boolean") return "bool";
  if (t === "array") return "list";
  return "Any";
}

/** One tool as the template documents it: a Python signature and docstring with `[必填]`/`[选填]` marks. */
function renderToolDoc(tool: Tool): string {
  const schema = tool.inputSchema as { properties?: Record<string, Schema>; required?: unknown };
  const props = Object.entries(schema.properties ?? {});
  const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : [];
  const lines = [
    "",
    "",
    "Function:",
    `def ${tool.name}(${props.map(([k, s]) => `${k}: ${pyType(s?.type)}`).join(",")}):`,
    '    """',
    `    ${(tool.description ?? "").trim()}`,
    "",
  ];
  if (props.length > 0) {
    lines.push("    Args:");
    for (const [k, s] of props) {
      const mark = required.includes(k) ? "[必填]" : "[选填]";
      const description = typeof s?.description === "string" ? s.description : "";
      lines.push("", `    - ${k} (${pyType(s?.type)}) ${mark}: ${description}`);
    }
  }
  lines.push("", '    """');
  return lines.join("\n");
}

/** A string the reader would change (a newline at either end) is written as JSON; `encodeTextValue` quotes the rest. */
const mustQuote = (s: string): boolean => s.startsWith("\n") || s.endsWith("\n");

/**
 * ByteDance Seed-OSS: `<seed:tool_call>\n<function=name>\n<parameter=k>v</parameter>\n</function>\n
 * </seed:tool_call>`, reasoning in `<seed:think>…</seed:think>`, turns ended by `<seed:eos>`, results in the
 * `tool` role as text. Values are text: strings raw, others as literals, read back by the tools' schemas (vLLM's
 * seed_oss parser keeps a string when the schema does not say otherwise). Markers and catalogue wording from the
 * model's chat template (llama.cpp models/templates/ByteDance-Seed-OSS.jinja).
 */
export const seedOssProtocol: ToolCallProtocol = {
  id: "seed_oss",
  description:
    "Seed-OSS <seed:tool_call><function=name><parameter=k>v</parameter></function></seed:tool_call>",
  resultRole: "tool",
  stopSequences: [EOS],
  callStartMarkers: [SECTION_OPEN],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return [
      "You may call one or more functions to assist with the user query.",
      ...tools.map(renderToolDoc),
      "",
      "工具调用请遵循如下格式:",
      SECTION_OPEN,
      "<function=example_function_name>",
      "<parameter=example_parameter_1>value_1</parameter>",
      "<parameter=example_parameter_2>This is the value for the second parameter",
      "that can span",
      "multiple lines</parameter>",
      "</function>",
      SECTION_CLOSE,
      ...oneCallOnlyLines(opts, "Call at most one function per reply."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const prose = content?.trim() ?? "";
    const rendered = calls.map((c) => {
      const params = Object.entries(c.arguments)
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `<parameter=${k}>${encodeTextValue(v, mustQuote)}</parameter>\n`)
        .join("");
      return `${SECTION_OPEN}\n<function=${c.name}>\n${params}</function>\n${SECTION_CLOSE}`;
    });
    return [prose, ...rendered].filter((s) => s !== "").join("\n");
  },
  renderToolResults(results) {
    return renderResultTexts(results);
  },
  createParser(opts) {
    return new StreamParser(
      {
        rules: [
          reasoningRule(THINK_OPEN, THINK_CLOSE),
          dropRule(THINK_CLOSE),
          reasoningRule(),
          dropRule("</think>"),
          dropRule(EOS),
          ...taggedSectionRules(SYNTAX),
        ],
        strayClosers: [SYNTAX.sectionClose!, SYNTAX.callClose],
        initialRegion: (ctx, prefix) => {
          const p = prefix.trimEnd();
          if (p.endsWith(THINK_OPEN) || p.endsWith(BUDGET_OPEN)) return new ReasoningRegion(ctx, THINK_CLOSE);
          return p.endsWith("<think>") ? new ReasoningRegion(ctx, "</think>") : null;
        },
      },
      opts,
    );
  },
};
