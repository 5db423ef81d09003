import type { Tool } from "@modelcontextprotocol/server";
import type { AgentMessage } from "../../src/core/agent-message.js";
import { ChatTemplate } from "../../src/models/chat-template/chat-template.js";
import { renderCompletionPrompt } from "../../src/models/completions/render-completion-prompt.js";
import { CHATML_TEMPLATE } from "../../src/models/gguf/llama-gguf.js";
import { withCompactCatalogue } from "../../src/protocols/compact-catalogue.js";
import { hermesProtocol } from "../../src/protocols/formats/hermes.js";

/** The protocol the bundled model speaks: Hermes tags with the compact catalogue. */
export const BUNDLED_PROTOCOL = withCompactCatalogue(hermesProtocol);
const template = new ChatTemplate(CHATML_TEMPLATE, { name: "chatml" });

export interface RenderedConversation {
  text: string;
  /** Character spans the model must learn to write: each assistant turn's text and its end-of-turn token. */
  targets: Array<{ start: number; end: number }>;
}

const END = "<|im_end|>";

/** The prompt the text-protocol llama backend sends for `messages` (ChatML, compact Hermes catalogue). */
export function renderPrompt(messages: readonly AgentMessage[], tools: readonly Tool[]): string {
  return renderCompletionPrompt({ messages, tools, toolChoice: "auto", protocol: BUNDLED_PROTOCOL, template })
    .prompt;
}

/**
 * A whole training conversation: for each assistant message, the prompt the runtime would send just before it
 * (everything so far plus the generation header), then what the model should write. Because the rendering is
 * prefix-stable (checked here), the target is the full rendering's text after that prompt, up to the end token.
 */
export function renderConversation(
  messages: readonly AgentMessage[],
  tools: readonly Tool[],
): RenderedConversation {
  const targets: RenderedConversation["targets"] = [];
  let text = "";
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    const prompt = renderPrompt(messages.slice(0, i), tools);
    if (!prompt.startsWith(text)) throw new Error("conversation rendering is not prefix-stable");
    const written = m.toolCalls?.length
      ? BUNDLED_PROTOCOL.renderAssistantTurn({ content: m.content, calls: m.toolCalls })
      : m.content;
    targets.push({ start: prompt.length, end: prompt.length + written.length + END.length });
    text = prompt + written + END;
  });
  const full = renderPrompt(messages, tools);
  if (!full.startsWith(text)) throw new Error("assistant turns do not render as the model writes them");
  return { text, targets };
}
