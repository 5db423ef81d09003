import { joinContentAndCalls, resultToText } from "../core/render-helpers.js";
import { taggedJsonCallRule } from "../core/start-rules.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines } from "../render/catalogue-option-lines.js";
import { renderCallObjects } from "../render/render-call-objects.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const EXAMPLE = '<tool>\n{"name": "<tool name>", "arguments": {…}}\n</tool>';

function escapeAttr(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}

/** `<tool>{"name", "arguments"}</tool>` (reference 000): the catalogue lists each tool with its input schema. */
export const tagToolProtocol: ToolCallProtocol = {
  id: "tag_tool",
  description: '<tool>{"name","arguments"}</tool> tags with an MCP-style catalogue',
  resultRole: "user",
  stopSequences: ["<tool_result"],
  callStartMarkers: ["<tool>"],
  callBody: "json-call",
  renderCatalogue(tools, opts) {
    const first = tools[0];
    const example = first
      ? { name: first.name, arguments: exampleArguments(first.inputSchema) }
      : { name: "calculator", arguments: { expression: "2 + 2" } };
    return [
      "Available tools:",
      "",
      ...tools.flatMap((t) => [
        `${t.name}: ${t.description ?? t.title ?? ""}`,
        `Input schema: ${JSON.stringify(t.inputSchema, null, 2)}`,
        "",
      ]),
      "To use a tool, respond with:",
      "<tool>",
      JSON.stringify(example, null, 2),
      "</tool>",
      "",
      opts?.parallel === false
        ? "Use at most one tool per reply, then wait for its result."
        : "You may use several tools in one reply, one <tool> block each; then wait for the results.",
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const rendered = renderCallObjects(calls, { open: "<tool>\n", close: "\n</tool>", indent: 2 });
    return joinContentAndCalls(content, rendered);
  },
  renderToolResults(results) {
    return results
      .map((r) => {
        const err = r.result.isError ? ' error="true"' : "";
        return `<tool_result name="${escapeAttr(r.name)}"${err}>\n${resultToText(r.result)}\n</tool_result>`;
      })
      .join("\n");
  },
  createParser(opts) {
    return createThinkingParser([taggedJsonCallRule("<tool>", "</tool>", EXAMPLE)], opts, {
      strayClosers: ["</tool>"],
    });
  },
};

/** Placeholder arguments for the catalogue's example: one value per required property. */
function exampleArguments(schema: unknown): Record<string, unknown> {
  const s = schema as { properties?: Record<string, { type?: unknown }>; required?: string[] };
  const out: Record<string, unknown> = {};
  for (const key of s.required ?? Object.keys(s.properties ?? {}).slice(0, 2)) {
    const t = s.properties?.[key]?.type;
    out[key] = t === "number" || t === "integer" ? 1 : t === "boolean" ? true : t === "array" ? [] : "…";
  }
  return out;
}
