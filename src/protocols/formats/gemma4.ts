import { dropRule, reasoningPrefix, reasoningRule } from "../core/reasoning-region.js";
import { StreamParser } from "../core/stream-engine.js";
import type { ToolCallProtocol } from "../protocol.js";
import {
  type GemmaCallTokens,
  gemmaCallRules,
  renderGemmaCall,
  renderGemmaResults,
} from "./shared-gemma-call-syntax.js";
import { renderGemmaCatalogue } from "./shared-gemma-catalogue.js";

const TOKENS: GemmaCallTokens = {
  callStart: "<|tool_call>",
  callEnd: "<tool_call|>",
  quote: '<|"|>',
  declarationStart: "<|tool>",
  declarationEnd: "<tool|>",
  responseStart: "<|tool_response>",
  responseEnd: "<tool_response|>",
  example: '<|tool_call>call:get_weather{city:<|"|>Paris<|"|>,days:3}<tool_call|>',
};
const THOUGHT = "<|channel>thought";
const CHANNEL_END = "<channel|>";
const END_OF_TURN = "<turn|>";

/**
 * Google Gemma 4: `<|tool_call>call:get_weather{city:<|"|>Paris<|"|>}<tool_call|>` — keys bare, strings between
 * `<|"|>` tokens, other values bare; several calls are written back to back. Tools are declared in the system
 * turn as `<|tool>declaration:name{…}<tool|>`, results come back as `<|tool_response>response:name{…}
 * <tool_response|>`, reasoning in `<|channel>thought …<channel|>`. Markers from the model's chat template
 * (llama.cpp models/templates/gemma4.jinja) and vLLM's gemma4 tool parser.
 */
export const gemma4Protocol: ToolCallProtocol = {
  id: "gemma4",
  description: 'Gemma 4 <|tool_call>call:name{key:<|"|>value<|"|>}<tool_call|>',
  resultRole: "tool",
  stopSequences: [TOKENS.responseStart, END_OF_TURN],
  callStartMarkers: [TOKENS.callStart],
  callBody: "text",
  renderCatalogue(tools, opts) {
    return renderGemmaCatalogue(tools, opts, TOKENS, {
      intro: "",
      howToCall: `To call a tool, write ${TOKENS.example} (strings between <|"|> tokens, other values bare); write one such block per call.`,
      oneCallOnly: "Call at most one tool per turn.",
    });
  },
  renderAssistantTurn({ content, calls }) {
    return `${calls.map((c) => renderGemmaCall(c, TOKENS)).join("")}${content?.trim() ?? ""}`;
  },
  renderToolResults(results) {
    return renderGemmaResults(results, TOKENS);
  },
  createParser(opts) {
    return new StreamParser(
      {
        rules: [
          reasoningRule(THOUGHT, CHANNEL_END),
          dropRule(CHANNEL_END),
          reasoningRule(),
          dropRule("</think>"),
          dropRule(END_OF_TURN),
          dropRule(TOKENS.callEnd),
          ...gemmaCallRules(TOKENS),
        ],
        strayClosers: [TOKENS.callEnd],
        initialRegion: (ctx, prefix) =>
          reasoningPrefix(THOUGHT, CHANNEL_END)(ctx, prefix.replace(/\s+$/, "")) ??
          reasoningPrefix()(ctx, prefix),
      },
      opts,
    );
  },
};
