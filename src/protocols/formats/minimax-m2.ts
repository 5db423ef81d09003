import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls, toolToFunctionJson } from "../core/render-helpers.js";
import { cleanAttributeName, type TaggedCallSyntax } from "../core/tagged-call-region.js";
import { encodeTextValue, isNewlineWrapped, unwrapNewlinePair } from "../core/text-value-codec.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { renderResultTexts } from "../render/render-result-texts.js";
import { taggedSectionRules } from "./shared-tagged-section-rules.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const EXAMPLE =
  '<minimax:tool_call>\n<invoke name="tool-name">\n<parameter name="param-key">param-value</parameter>\n</invoke>\n</minimax:tool_call>';

const SYNTAX: TaggedCallSyntax = {
  sectionOpen: "<minimax:tool_call>",
  sectionClose: "</minimax:tool_call>",
  callOpen: { prefix: "<invoke name=", end: ">", clean: cleanAttributeName },
  callClose: "</invoke>",
  paramOpen: { prefix: "<parameter name=", end: ">", clean: cleanAttributeName },
  paramClose: "</parameter>",
  unwrapValue: unwrapNewlinePair,
  untypedValues: "text",
  example: EXAMPLE,
  what: "the <minimax:tool_call> block",
};

/** `"name"` as the attribute value the template writes. */
function attr(name: string): string {
  return JSON.stringify(name);
}

/**
 * MiniMax-M2: `<minimax:tool_call>\n<invoke name="f">\n<parameter name="k">v</parameter>\n</invoke>\n
 * </minimax:tool_call>`, several `<invoke>` per block. Values are text (strings raw, others JSON), read back by
 * the tools' schemas. Reasoning is `<think>…</think>` (the generation prompt opens it: pass prefix `<think>`).
 * Results go back in the tool turn as `<response>` blocks.
 */
export const minimaxM2Protocol: ToolCallProtocol = {
  id: "minimax_m2",
  description: 'MiniMax-M2 <minimax:tool_call><invoke name="f"><parameter name="k">v</parameter></invoke>',
  resultRole: "tool",
  stopSequences: ["[e~[", "]~b]"],
  callStartMarkers: ["<minimax:tool_call>"],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return [
      "# Tools",
      "You may call one or more tools to assist with the user query.",
      "Here are the tools available in JSONSchema format:",
      "",
      "<tools>",
      ...tools.map((t) => `<tool>${JSON.stringify(toolToFunctionJson(t))}</tool>`),
      "</tools>",
      "",
      "When making tool calls, use XML format to invoke tools and pass parameters:",
      "",
      "<minimax:tool_call>",
      '<invoke name="tool-name-1">',
      '<parameter name="param-key-1">param-value-1</parameter>',
      '<parameter name="param-key-2">param-value-2</parameter>',
      "...",
      "</invoke>",
      "</minimax:tool_call>",
      ...oneCallOnlyLines(opts, "Invoke at most one tool per reply."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    if (calls.length === 0) return content ?? "";
    const invokes = calls
      .map((c) => {
        const params = Object.entries(c.arguments)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => `<parameter name=${attr(k)}>${encodeTextValue(v, isNewlineWrapped)}</parameter>\n`)
          .join("");
        return `<invoke name=${attr(c.name)}>\n${params}</invoke>\n`;
      })
      .join("");
    return joinContentAndCalls(content, `<minimax:tool_call>\n${invokes}</minimax:tool_call>`);
  },
  renderToolResults(results) {
    return renderResultTexts(results, { open: "<response>", close: "</response>" });
  },
  createParser(opts) {
    return createThinkingParser([dropRule("[e~["), ...taggedSectionRules(SYNTAX)], opts, {
      strayClosers: [SYNTAX.sectionClose!, SYNTAX.callClose],
    });
  },
};
