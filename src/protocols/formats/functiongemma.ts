import { dropRule } from "../core/reasoning-region.js";
import type { ToolCallProtocol } from "../protocol.js";
import {
  type GemmaCallTokens,
  gemmaCallRules,
  renderGemmaCall,
  renderGemmaResults,
} from "./shared-gemma-call-syntax.js";
import { renderGemmaCatalogue } from "./shared-gemma-catalogue.js";
import { createThinkingParser } from "./shared-thinking-parser.js";

const TOKENS: GemmaCallTokens = {
  callStart: "<start_function_call>",
  callEnd: "<end_function_call>",
  quote: "<escape>",
  declarationStart: "<start_function_declaration>",
  declarationEnd: "<end_function_declaration>",
  responseStart: "<start_function_response>",
  responseEnd: "<end_function_response>",
  example: "<start_function_call>call:get_weather{city:<escape>Paris<escape>}<end_function_call>",
};

/**
 * Google FunctionGemma (functiongemma-270m-it): `<start_function_call>call:name{key:<escape>value<escape>}
 * <end_function_call>` — Gemma 4's call syntax with `<escape>` as the string delimiter; tools declared in the
 * developer turn as `<start_function_declaration>declaration:name{…}<end_function_declaration>`, results as
 * `<start_function_response>response:name{…}<end_function_response>`. Markers from vLLM's functiongemma tool
 * parser and the model's prompt format; string values are read back by the tools' schemas.
 */
export const functionGemmaProtocol: ToolCallProtocol = {
  id: "functiongemma",
  description: "FunctionGemma <start_function_call>call:name{key:<escape>value<escape>}<end_function_call>",
  resultRole: "tool",
  stopSequences: [TOKENS.responseStart, "<end_of_turn>"],
  callStartMarkers: [TOKENS.callStart],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return renderGemmaCatalogue(tools, opts, TOKENS, {
      intro: "You are a model that can do function calling with the following functions",
      oneCallOnly: "Call at most one function per turn.",
    });
  },
  renderAssistantTurn({ content, calls }) {
    return `${calls.map((c) => renderGemmaCall(c, TOKENS)).join("")}${content?.trim() ?? ""}`;
  },
  renderToolResults(results) {
    return renderGemmaResults(results, TOKENS);
  },
  createParser(opts) {
    return createThinkingParser(
      [dropRule("<end_of_turn>"), dropRule(TOKENS.callEnd), ...gemmaCallRules(TOKENS)],
      opts,
      { strayClosers: [TOKENS.callEnd] },
    );
  },
};
