import { randomBytes } from "node:crypto";
// What this API writes is typed by the openai SDK's own wire types (the one home of OpenAI's shapes): the compiler
// checks it against what the official client reads.
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageFunctionToolCall,
} from "openai/resources/chat/completions";
import type { CompletionUsage } from "openai/resources/completions";
import type { WireEncoder } from "./stream-turn.js";
import { turnFailure } from "./turn-failure.js";
import type { TurnCall, TurnFinishReason, TurnOutput, TurnUsage } from "./turn-reader.js";

/** One finished tool call as OpenAI returns it: `arguments` always a JSON string, `"{}"` for none. */
function toolCall(call: TurnCall): ChatCompletionMessageFunctionToolCall {
  return { id: call.id, type: "function", function: { name: call.name, arguments: call.arguments } };
}

function chatUsage(usage: TurnUsage): CompletionUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** `chatcmpl-` + 24 alphanumerics. */
export function completionId(): string {
  return `chatcmpl-${randomBytes(18).toString("base64url").replace(/[-_]/g, "x")}`;
}

/**
 * Writes a turn as `chat.completion.chunk`s exactly as OpenAI streams them (openai-compat notes, server checklist):
 * `role` in the first delta (`content: ""` before text, `content: null` before a call); per call a header fragment
 * with `index`, `id`, `type`, `name` and `arguments: ""`, then its whole arguments in one fragment; a final `delta: {}`
 * with `finish_reason`; with `include_usage`, `"usage": null` on every chunk and a last `choices: []` chunk with the
 * usage; then `data: [DONE]`. Reasoning is not part of this API's wire and is left out.
 */
export class ChatChunkWriter implements WireEncoder {
  readonly #base: { id: string; object: "chat.completion.chunk"; created: number; model: string };
  #started = false;

  constructor(
    model: string,
    readonly includeUsage: boolean,
    id: string = completionId(),
  ) {
    this.#base = { id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model };
  }

  #chunk(
    delta: ChatCompletionChunk.Choice.Delta,
    finish: TurnFinishReason | null = null,
  ): ChatCompletionChunk {
    return {
      ...this.#base,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
      ...(this.includeUsage ? { usage: null } : {}),
    };
  }

  write(output: TurnOutput): string {
    return this.chunks(output)
      .map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`)
      .join("");
  }

  end(): string {
    return "data: [DONE]\n\n";
  }

  fail(error: unknown): string {
    return `data: ${JSON.stringify(turnFailure(error).body())}\n\n`;
  }

  /** The chunks for one piece of output, in order. */
  chunks(output: TurnOutput): ChatCompletionChunk[] {
    if (output.kind === "reasoning") return [];
    const chunks: ChatCompletionChunk[] = [];
    const role = !this.#started;
    this.#started = true;
    switch (output.kind) {
      case "text":
        if (role) chunks.push(this.#chunk({ role: "assistant", content: "" }));
        chunks.push(this.#chunk({ content: output.text }));
        break;
      case "call": {
        const { index } = output.call;
        const { id, type, function: fn } = toolCall(output.call);
        const header = { index, id, type, function: { name: fn.name, arguments: "" } };
        chunks.push(
          this.#chunk(
            role ? { role: "assistant", content: null, tool_calls: [header] } : { tool_calls: [header] },
          ),
        );
        chunks.push(this.#chunk({ tool_calls: [{ index, function: { arguments: fn.arguments } }] }));
        break;
      }
      case "finish":
        if (role) chunks.push(this.#chunk({ role: "assistant", content: "" }));
        chunks.push(this.#chunk({}, output.reason));
        if (this.includeUsage) chunks.push({ ...this.#base, choices: [], usage: chatUsage(output.usage) });
        break;
    }
    return chunks;
  }
}

/** The non-streaming response: the text joined, the calls in order, `content: null` when there are only calls. */
export function buildChatCompletion(model: string, outputs: readonly TurnOutput[]): ChatCompletion {
  let text = "";
  const calls: ChatCompletionMessageFunctionToolCall[] = [];
  let reason: TurnFinishReason = "stop";
  let usage: CompletionUsage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
  for (const output of outputs) {
    if (output.kind === "text") text += output.text;
    else if (output.kind === "call") calls.push(toolCall(output.call));
    else if (output.kind === "finish") {
      reason = output.reason;
      usage = chatUsage(output.usage);
    }
  }
  return {
    id: completionId(),
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: {
          role: "assistant",
          content: calls.length && !text ? null : text,
          refusal: null,
          ...(calls.length ? { tool_calls: calls } : {}),
        },
        logprobs: null,
        finish_reason: reason,
      },
    ],
    usage,
  };
}
