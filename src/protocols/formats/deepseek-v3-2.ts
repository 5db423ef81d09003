import { dropRule } from "../core/reasoning-region.js";
import { toolToFunctionJson } from "../core/render-helpers.js";
import { cleanAttributeName, type TaggedCallSyntax } from "../core/tagged-call-region.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { taggedSectionRules } from "./shared-tagged-section-rules.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

// DeepSeek's DSML token uses fullwidth bars (U+FF5C), like its other special tokens.
const DSML = "｜DSML｜";
const CALLS_OPEN = `<${DSML}function_calls>`;
const CALLS_CLOSE = `</${DSML}function_calls>`;
const INVOKE = `<${DSML}invoke name=`;
const INVOKE_CLOSE = `</${DSML}invoke>`;
const PARAM = `<${DSML}parameter name=`;
const PARAM_CLOSE = `</${DSML}parameter>`;
const EOS = "<｜end▁of▁sentence｜>";
const EXAMPLE = `${CALLS_OPEN}\n${INVOKE}"$FUNCTION_NAME">\n${PARAM}"$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE${PARAM_CLOSE}\n${INVOKE_CLOSE}\n${CALLS_CLOSE}`;

/** `"city" string="true"` → `city` (the attribute after the name says how the value is written). */
function paramName(raw: string): string | null {
  const m = /^\s*("[^"]*"|'[^']*'|[^\s"']+)/.exec(raw);
  return m ? cleanAttributeName(m[1]!) : null;
}

const SYNTAX: TaggedCallSyntax = {
  sectionOpen: CALLS_OPEN,
  sectionClose: CALLS_CLOSE,
  callOpen: { prefix: INVOKE, end: ">", clean: cleanAttributeName },
  callClose: INVOKE_CLOSE,
  paramOpen: { prefix: PARAM, end: ">", clean: paramName },
  paramClose: PARAM_CLOSE,
  // The template writes values as they are, with no newline around them.
  unwrapValue: (raw) => raw,
  isStringParam: (rawTag) => /\sstring\s*=\s*["']true["']/.test(rawTag),
  // `string="false"` marks a JSON value: read it as JSON when no schema says otherwise.
  untypedValues: "json",
  example: EXAMPLE,
  what: `the ${CALLS_OPEN} block`,
};

/** A value as the template writes it: strings as they are (`string="true"`), anything else as JSON. */
function renderParam(key: string, value: unknown): string {
  const isString = typeof value === "string";
  const text = isString ? value : JSON.stringify(value ?? null);
  return `${PARAM}"${key}" string="${isString}">${text}${PARAM_CLOSE}`;
}

/**
 * DeepSeek V3.2: calls in DSML, `<｜DSML｜function_calls>` holding `<｜DSML｜invoke name="f">` elements whose
 * `<｜DSML｜parameter name="k" string="true|false">` children carry strings as written and other values as JSON;
 * `<think>` reasoning (the generation prompt opens it: pass prefix `<think>`); results as `<result>` elements of a
 * `<function_results>` block. Markers and wording from the model's chat template (llama.cpp
 * models/templates/DeepSeek-V3.2.jinja) and vLLM's deepseekv32 tool parser. Without a schema a `string="true"`
 * value stays a string; with one, the schema decides.
 */
export const deepseekV32Protocol: ToolCallProtocol = {
  id: "deepseek_v3_2",
  description: 'DeepSeek V3.2 DSML <｜DSML｜invoke name="f"><｜DSML｜parameter name="k" string="true">',
  resultRole: "tool",
  stopSequences: [EOS, "<function_results>"],
  callStartMarkers: [CALLS_OPEN],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return [
      "## Tools",
      "",
      "You have access to a set of tools you can use to answer the user's question.",
      `You can invoke functions by writing a "${CALLS_OPEN}" block like the following as part of your reply to the user:`,
      CALLS_OPEN,
      `${INVOKE}"$FUNCTION_NAME">`,
      `${PARAM}"$PARAMETER_NAME" string="true|false">$PARAMETER_VALUE${PARAM_CLOSE}`,
      "...",
      INVOKE_CLOSE,
      `${INVOKE}"$FUNCTION_NAME2">`,
      "...",
      INVOKE_CLOSE,
      CALLS_CLOSE,
      "",
      'String and scalar parameters should be specified as is without any escaping or quotes, while lists and objects should use JSON format. The "string" attribute should be set to "true" for string type parameters and "false" for other types (numbers, booleans, arrays, objects).',
      ...oneCallOnlyLines(opts, "Invoke at most one function per reply."),
      "",
      "Here are the functions available in JSONSchema format:",
      "<functions>",
      ...tools.map((t) => JSON.stringify(toolToFunctionJson(t))),
      "</functions>",
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const prose = content ?? "";
    if (calls.length === 0) return prose;
    const invokes = calls
      .map((c) => {
        const params = Object.entries(c.arguments)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => renderParam(k, v))
          .join("\n");
        return `${INVOKE}"${c.name}">\n${params}${params ? "\n" : ""}${INVOKE_CLOSE}`;
      })
      .join("\n");
    return `${prose}${prose ? "\n\n" : ""}${CALLS_OPEN}\n${invokes}\n${CALLS_CLOSE}`;
  },
  renderToolResults(results) {
    const items = renderResultTexts(results, { open: "<result>", close: "</result>" });
    return `<function_results>\n${items}\n</function_results>`;
  },
  createParser(opts) {
    return createThinkingParser([dropRule(EOS), ...taggedSectionRules(SYNTAX)], opts, {
      strayClosers: [SYNTAX.sectionClose!, SYNTAX.callClose],
    });
  },
};
