import type { ModelEvent, ModelFinishReason, ToolChoice } from "../../core/language-model.js";
import { generateCallId } from "../../models/generate-call-id.js";
import { decodeCallArguments } from "../../protocols/decode-call-arguments.js";

/** One finished tool call as OpenAI returns it: `arguments` always a JSON string, `"{}"` for none. */
export interface OpenAIToolCall {
  index: number;
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}

export type ChatOutput =
  | { kind: "text"; text: string }
  | { kind: "call"; call: OpenAIToolCall }
  | { kind: "finish"; reason: "stop" | "length" | "tool_calls" | "content_filter"; usage: OpenAIUsage };

export interface OpenAIUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** `call_` + alphanumerics: ids a backend made that way are kept, others (upstream ids, protocol ids) are re-minted. */
function openAICallId(id: string | undefined, used: Set<string>): string {
  let candidate =
    id && /^call_[A-Za-z0-9]+$/.test(id) ? id : id && /^[A-Za-z0-9]+$/.test(id) ? `call_${id}` : undefined;
  while (candidate === undefined || used.has(candidate)) candidate = `call_${generateCallId()}`;
  used.add(candidate);
  return candidate;
}

function finishReason(
  reason: ModelFinishReason,
  calls: number,
): Extract<ChatOutput, { kind: "finish" }>["reason"] {
  if (calls > 0) return "tool_calls";
  if (reason === "length") return "length";
  if (reason === "content-filter") return "content_filter";
  return "stop";
}

/**
 * Reads a LanguageModel's turn as what an OpenAI chat completion carries: text, whole tool calls (each handed over
 * only once complete, so its arguments go out in one piece and calls never interleave), and the finish. The server
 * runs no tool: calls go back to the client. `none` drops any call a model makes anyway; `parallel_tool_calls:
 * false` keeps the first; a call the model botched (`call-error`) is not a call the client can run, so it is dropped.
 */
export class ChatTurnReader {
  #calls = 0;
  readonly #ids = new Set<string>();

  constructor(readonly options: { toolChoice: ToolChoice; parallelToolCalls: boolean }) {}

  get calls(): number {
    return this.#calls;
  }

  read(event: ModelEvent): ChatOutput | undefined {
    switch (event.type) {
      case "text-delta":
        return event.text ? { kind: "text", text: event.text } : undefined;
      case "call-end": {
        if (this.options.toolChoice === "none") return undefined;
        if (!this.options.parallelToolCalls && this.#calls > 0) return undefined;
        const decoded = decodeCallArguments(event.arguments);
        // Undecodable text is passed on as the model wrote it (as OpenAI does); the client reports the parse error.
        const args = decoded.ok
          ? JSON.stringify(decoded.value)
          : typeof event.arguments === "string"
            ? event.arguments
            : "{}";
        const call: OpenAIToolCall = {
          index: this.#calls,
          id: openAICallId(event.id, this.#ids),
          type: "function",
          function: { name: event.name, arguments: args },
        };
        this.#calls += 1;
        return { kind: "call", call };
      }
      case "finish": {
        const prompt = event.usage?.inputTokens ?? 0;
        const completion = event.usage?.outputTokens ?? 0;
        return {
          kind: "finish",
          reason: finishReason(event.reason, this.#calls),
          usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
        };
      }
      default:
        // call-start / call-args-delta: the call is sent whole at call-end. reasoning-delta: not part of this API.
        return undefined;
    }
  }
}
