import type { Tool } from "@modelcontextprotocol/server";
import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls } from "../core/render-helpers.js";
import { cleanAttributeName, TaggedCallRegion, type TaggedCallSyntax } from "../core/tagged-call-region.js";
import { encodeTextValue } from "../core/text-value-codec.js";
import type { ToolCallProtocol } from "../protocol.js";
import { oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { renderResultTexts, TOOL_RESPONSE_BLOCK } from "../render/render-result-texts.js";
import { hermesJsonFallback } from "./shared-hermes-json-call-rule.js";
import { taggedSectionRules } from "./shared-tagged-section-rules.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const EXAMPLE =
  "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n</function>\n</tool_call>";

/** The chat template writes each value between newlines: `<parameter=k>\nvalue\n</parameter>`. */
function unwrapValue(raw: string): string {
  let v = raw;
  if (v.startsWith("\r\n")) v = v.slice(2);
  else if (v.startsWith("\n")) v = v.slice(1);
  if (v.endsWith("\r\n")) v = v.slice(0, -2);
  else if (v.endsWith("\n")) v = v.slice(0, -1);
  return v;
}

const SYNTAX: TaggedCallSyntax = {
  sectionOpen: "<tool_call>",
  sectionClose: "</tool_call>",
  callOpen: { prefix: "<function=", end: ">", clean: cleanAttributeName },
  callClose: "</function>",
  paramOpen: { prefix: "<parameter=", end: ">", clean: cleanAttributeName },
  paramClose: "</parameter>",
  unwrapValue,
  untypedValues: "text",
  example: EXAMPLE,
  what: "the <tool_call> block",
};

type Schema = Record<string, unknown>;

/** One tool in the template's XML listing (`<function><name>…</name>…<parameters>…</parameters></function>`). */
function renderToolXml(tool: Tool): string {
  const schema = tool.inputSchema as Schema;
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const lines = ["<function>", `<name>${tool.name}</name>`];
  const description = (tool.description ?? tool.title ?? "").trim();
  if (description) lines.push(`<description>${description}</description>`);
  lines.push("<parameters>");
  for (const [name, p] of Object.entries(props)) {
    lines.push("<parameter>", `<name>${name}</name>`);
    if (p.type !== undefined)
      lines.push(`<type>${Array.isArray(p.type) ? p.type.join(" | ") : String(p.type)}</type>`);
    if (typeof p.description === "string") lines.push(`<description>${p.description.trim()}</description>`);
    for (const [k, v] of Object.entries(p)) {
      if (k === "type" || k === "description" || v === undefined) continue;
      const tag = k.replace(/[-\s$]/g, "_");
      lines.push(`<${tag}>${typeof v === "object" ? JSON.stringify(v) : String(v)}</${tag}>`);
    }
    lines.push("</parameter>");
  }
  if (Array.isArray(schema.required) && schema.required.length > 0) {
    lines.push(`<required>[${schema.required.map((r) => `\`${String(r)}\``).join(", ")}]</required>`);
  }
  lines.push("</parameters>", "</function>");
  return lines.join("\n");
}

/**
 * Qwen3-Coder: `<tool_call>\n<function=name>\n<parameter=key>\nvalue\n</parameter>\n</function>\n</tool_call>`.
 * Values are text (strings raw, other values as JSON or Python literals), so they are read back by the tools'
 * schemas. Results go back in the user turn as `<tool_response>` blocks. Also read: a bare `<function=…>` without
 * the `<tool_call>` wrapper, and Hermes-style JSON inside `<tool_call>`, both of which these models emit.
 */
export const qwen3CoderXmlProtocol: ToolCallProtocol = {
  id: "qwen3_coder_xml",
  description:
    "Qwen3-Coder <tool_call><function=name><parameter=key>value</parameter></function></tool_call>",
  resultRole: "user",
  stopSequences: ["<tool_response>"],
  callStartMarkers: ["<tool_call>", "<function="],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return [
      "You have access to the following functions:",
      "",
      "<tools>",
      ...tools.map(renderToolXml),
      "</tools>",
      "",
      "If you choose to call a function ONLY reply in the following format with NO suffix:",
      "",
      "<tool_call>",
      "<function=example_function_name>",
      "<parameter=example_parameter_1>",
      "value_1",
      "</parameter>",
      "<parameter=example_parameter_2>",
      "This is the value for the second parameter",
      "that can span",
      "multiple lines",
      "</parameter>",
      "</function>",
      "</tool_call>",
      "",
      "<IMPORTANT>",
      "Reminder:",
      "- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested within <tool_call></tool_call> XML tags",
      "- Required parameters MUST be specified",
      "- You may provide optional reasoning for your function call in natural language BEFORE the function call, but NOT after",
      "- If there is no function call available, answer the question like normal with your current knowledge and do not tell the user about function calls",
      ...oneCallOnlyLines(opts, "- Call at most one function per reply"),
      ...(opts?.extraInstructions ? [`- ${opts.extraInstructions}`] : []),
      "</IMPORTANT>",
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const rendered = calls
      .map((c) => {
        const params = Object.entries(c.arguments)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `<parameter=${k}>\n${encodeTextValue(v)}\n</parameter>\n`)
          .join("");
        return `<tool_call>\n<function=${c.name}>\n${params}</function>\n</tool_call>`;
      })
      .join("\n");
    return joinContentAndCalls(content, rendered);
  },
  renderToolResults(results) {
    return renderResultTexts(results, TOOL_RESPONSE_BLOCK);
  },
  createParser(opts) {
    return createThinkingParser(
      [
        dropRule("<|im_end|>"),
        ...taggedSectionRules(SYNTAX, hermesJsonFallback),
        {
          first: "<",
          pattern: ["<function=", { ident: "name" }, ">"],
          open: (ctx, m) => new TaggedCallRegion(ctx, SYNTAX, { opener: m.text, bareCall: m.captures.name! }),
        },
      ],
      opts,
      { strayClosers: [SYNTAX.sectionClose!, SYNTAX.callClose] },
    );
  },
};
