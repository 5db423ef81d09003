import type { AgentMessage } from "../core/agent-message.js";
import type { LanguageModel, ModelEvent, ModelRequest } from "../core/language-model.js";
import type { ToolCallProtocol } from "../protocols/protocol.js";
import { toProtocolTranscript } from "./completions/render-completion-prompt.js";
import { enforceToolChoice } from "./enforce-tool-choice.js";
import { TextCallReader } from "./text-call-reader.js";

export interface TextProtocolModel extends LanguageModel {
  readonly supportsNativeTools: false;
  readonly protocol: ToolCallProtocol;
}

/**
 * Uses a chat model without its native tools: the tools go into the system prompt through `protocol`, past calls and
 * results are written as text in the protocol's format, and the model's text is parsed here into call events. For
 * chat servers whose tool support is missing or broken (llama.cpp without --jinja, templates that drop tools), chosen
 * per model with `tools: "protocol"`. `required`/`{name}` are enforced by instruction and re-ask (no prefill in chat).
 */
export function withTextProtocol(
  inner: LanguageModel,
  protocol: ToolCallProtocol,
  options: { maxForcedRetries?: number; parallelToolCalls?: boolean } = {},
): TextProtocolModel {
  async function* attempt(request: ModelRequest, extra: readonly AgentMessage[]): AsyncIterable<ModelEvent> {
    const transcript = toProtocolTranscript({
      messages: [...request.messages, ...extra],
      tools: request.tools,
      toolChoice: request.toolChoice,
      protocol,
      ...(options.parallelToolCalls === false ? { parallel: false } : {}),
    });
    const messages: AgentMessage[] = transcript.map((m) =>
      m.role === "system"
        ? { role: "system", content: m.content }
        : m.role === "assistant"
          ? { role: "assistant", content: m.content }
          : { role: "user", content: m.content },
    );
    const reader = new TextCallReader({ protocol, tools: request.tools });
    for await (const event of inner.stream({
      messages,
      tools: [],
      toolChoice: "auto",
      signal: request.signal,
      ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
    })) {
      if (event.type === "text-delta") yield* reader.push(event.text);
      else if (event.type === "finish") {
        yield* reader.end();
        yield reader.calls > 0 ? { ...event, reason: "tool-calls" } : event;
      } else if (event.type === "reasoning-delta") yield event;
    }
  }
  return {
    id: `${inner.id}+${protocol.id}`,
    supportsNativeTools: false,
    protocol,
    stream: (request) =>
      enforceToolChoice(request.toolChoice, options.maxForcedRetries ?? 1, (extra) =>
        attempt(request, extra),
      ),
  };
}
