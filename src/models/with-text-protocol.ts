import type { AgentMessage } from "../core/agent-message.js";
import type { LanguageModel, ModelEvent, ModelRequest } from "../core/language-model.js";
import type { ToolCallProtocol } from "../protocols/protocol.js";
import { toProtocolTranscript } from "./completions/render-completion-prompt.js";
import { enforceToolChoice } from "./enforce-tool-choice.js";
import { SingleCallGate } from "./single-call-gate.js";
import { requestStops, stopAtVisibleText } from "./stop-at-visible-text.js";
import { offersCalls, TextCallReader } from "./text-call-reader.js";

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
    const parallel = request.parallelToolCalls ?? options.parallelToolCalls;
    const transcript = toProtocolTranscript({
      messages: [...request.messages, ...extra],
      tools: request.tools,
      toolChoice: request.toolChoice,
      protocol,
      ...(parallel === false ? { parallel: false } : {}),
    });
    const messages: AgentMessage[] = transcript.map((m) =>
      m.role === "system"
        ? { role: "system", content: m.content }
        : m.role === "assistant"
          ? { role: "assistant", content: m.content }
          : { role: "user", content: m.content },
    );
    const reader = new TextCallReader({ protocol, tools: request.tools, toolChoice: request.toolChoice });
    // With a call possible, the inner model's text holds call markup: stop strings apply after the parser (the inner
    // server would match them on the markup too), and a JSON answer format is not asked for (a call is not JSON).
    const callable = offersCalls(request);
    // One call at most: the inner stream is left (and so stopped) once it is complete.
    const gate = new SingleCallGate(parallel === false && callable);
    const { stop: _stop, ...withoutStop } = request.sampling ?? {};
    const innerEvents = inner.stream({
      messages,
      tools: [],
      toolChoice: "auto",
      signal: request.signal,
      ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
      ...(request.sampling ? { sampling: callable ? withoutStop : request.sampling } : {}),
      ...(request.responseFormat && !callable ? { responseFormat: request.responseFormat } : {}),
    });
    yield* stopAtVisibleText(parse(innerEvents), callable ? requestStops(request) : []);
    async function* parse(events: AsyncIterable<ModelEvent>): AsyncIterable<ModelEvent> {
      for await (const event of events) {
        if (event.type === "text-delta") {
          yield* gate.read(reader.push(event.text));
          if (gate.closed) {
            yield { type: "finish", reason: "tool-calls" };
            return;
          }
        } else if (event.type === "finish") {
          yield* gate.read(reader.end());
          yield { ...event, reason: reader.finishReason(event.reason) };
        } else if (event.type === "reasoning-delta") yield event;
      }
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
