import { dropRule } from "../core/reasoning-region.js";
import { joinContentAndCalls } from "../core/render-helpers.js";
import type { TaggedCallSyntax } from "../core/tagged-call-region.js";
import { encodeTextValue, isNewlineWrapped, unwrapNewlinePair } from "../core/text-value-codec.js";
import type { ToolCallProtocol } from "../protocol.js";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import { hermesToolsBlock } from "../render/hermes-tools-block.js";
import { renderResultTexts, TOOL_RESPONSE_BLOCK } from "../render/render-result-texts.js";
import { hermesJsonFallback } from "./shared-hermes-json-call-rule.js";
import { taggedSectionRules } from "./shared-tagged-section-rules.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const EXAMPLE =
  "<tool_call>{function-name}\n<arg_key>{arg-key-1}</arg_key>\n<arg_value>{arg-value-1}</arg_value>\n</tool_call>";

function cleanKey(raw: string): string | null {
  const k = raw.trim();
  return k === "" || /[\r\n]/.test(k) ? null : k;
}

const SYNTAX: TaggedCallSyntax = {
  sectionOpen: "<tool_call>",
  headEnds: ["\n", "<arg_key>", "</tool_call>"],
  callClose: "</tool_call>",
  // Keys are raw text up to `</arg_key>`: they may hold `<`, `>` or `&` (vLLM and llama.cpp keep them).
  paramOpen: { prefix: "<arg_key>", end: "</arg_key>", clean: cleanKey },
  valueOpen: "<arg_value>",
  paramClose: "</arg_value>",
  unwrapValue: unwrapNewlinePair,
  untypedValues: "json",
  example: EXAMPLE,
  what: "the <tool_call> block",
};

/**
 * GLM-4.5 / GLM-4.6 / GLM-4.7: `<tool_call>name\n<arg_key>k</arg_key>\n<arg_value>v</arg_value>\n</tool_call>`,
 * one call per block (4.7 writes it without newlines). String values are raw text, others JSON, so they are
 * read back by the tools' schemas. Reasoning is `<think>…</think>`; results go back after `<|observation|>` as
 * `<tool_response>` blocks.
 */
export const glm45Protocol: ToolCallProtocol = {
  id: "glm45",
  description: "GLM-4.5/4.6 <tool_call>name<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>",
  resultRole: "tool",
  stopSequences: ["<|observation|>", "<|user|>"],
  callStartMarkers: ["<tool_call>"],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return [
      ...hermesToolsBlock(tools),
      "For each function call, output the function name and arguments within the following XML format:",
      "<tool_call>{function-name}",
      "<arg_key>{arg-key-1}</arg_key>",
      "<arg_value>{arg-value-1}</arg_value>",
      "<arg_key>{arg-key-2}</arg_key>",
      "<arg_value>{arg-value-2}</arg_value>",
      "...",
      "</tool_call>",
      ...oneCallOnlyLines(opts, "Call at most one function per reply."),
      ...extraInstructionLines(opts),
    ].join("\n");
  },
  renderAssistantTurn({ content, calls }) {
    const rendered = calls
      .map((c) => {
        const args = Object.entries(c.arguments)
          .filter(([, v]) => v !== undefined)
          .map(
            ([k, v]) =>
              `<arg_key>${k}</arg_key>\n<arg_value>${encodeTextValue(v, isNewlineWrapped)}</arg_value>\n`,
          )
          .join("");
        return `<tool_call>${c.name}\n${args}</tool_call>`;
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
        dropRule("<|observation|>"),
        dropRule("<|user|>"),
        dropRule("<|assistant|>"),
        ...taggedSectionRules(SYNTAX, hermesJsonFallback),
      ],
      opts,
      { strayClosers: [SYNTAX.callClose] },
    );
  },
};
