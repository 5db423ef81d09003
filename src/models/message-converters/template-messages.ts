import type { AgentMessage } from "../../core/agent-message.js";
import { resultToText } from "../../protocols/core/render-helpers.js";

/**
 * A message as Hugging Face chat templates read it (transformers' `apply_chat_template` shape): tool-call arguments
 * are objects (templates run `| tojson` on them), tool results are text with the call's id and name.
 */
export interface TemplateMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  reasoning_content?: string;
  tool_calls?: Array<{
    id: string;
    type: "function";
    function: { name: string; arguments: Record<string, unknown> };
  }>;
  tool_call_id?: string;
  name?: string;
}

/** Our messages → chat-template messages, for templates that render tools and calls themselves. */
export function toTemplateMessages(messages: readonly AgentMessage[]): TemplateMessage[] {
  return messages.map((m): TemplateMessage => {
    switch (m.role) {
      case "system":
      case "user":
        return { role: m.role, content: m.content };
      case "assistant": {
        const out: TemplateMessage = { role: "assistant", content: m.content };
        if (m.reasoning) out.reasoning_content = m.reasoning;
        if (m.toolCalls?.length) {
          out.tool_calls = m.toolCalls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: c.arguments },
          }));
        }
        return out;
      }
      default:
        return { role: "tool", content: resultToText(m.result), tool_call_id: m.callId, name: m.name };
    }
  });
}
