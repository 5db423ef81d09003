import { randomBytes } from "node:crypto";
import type { WireEncoder } from "../openai/stream-turn.js";
import { turnFailure } from "../openai/turn-failure.js";
import type { TurnOutput } from "../openai/turn-reader.js";
import { anthropicErrorEvent } from "./anthropic-api-error.js";
import type { MessagesRequest } from "./parse-messages-request.js";

type Finish = Extract<TurnOutput, { kind: "finish" }>;
type StopReason = "end_turn" | "max_tokens" | "stop_sequence" | "tool_use" | "refusal";

/** `msg_` + 24 alphanumerics. */
function messageId(): string {
  return `msg_${randomBytes(18).toString("base64url").replace(/[-_]/g, "x")}`;
}

/** Anthropic's stop reasons: a call is `tool_use`, the token limit `max_tokens`, a stop string `stop_sequence`. */
function stopReason(finish: Finish): StopReason {
  if (finish.reason === "tool_calls") return "tool_use";
  if (finish.reason === "length") return "max_tokens";
  if (finish.reason === "content_filter") return "refusal";
  return finish.stopSequence !== undefined ? "stop_sequence" : "end_turn";
}

function usageOf(finish: Finish | undefined) {
  return {
    input_tokens: finish?.usage.inputTokens ?? 0,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: finish?.usage.outputTokens ?? 0,
  };
}

type Block =
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "text"; text: string }
  | { type: "tool_use"; id: string; name: string; input: unknown };

/** A call's arguments as the `input` object Anthropic's clients expect (`{}` for text that is not an object). */
function inputOf(args: string): unknown {
  try {
    const value: unknown = JSON.parse(args);
    return typeof value === "object" && value !== null && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

/** The non-streaming message: thinking, text and tool_use blocks in the order the model produced them. */
export function buildMessage(request: MessagesRequest, outputs: readonly TurnOutput[]) {
  const content: Block[] = [];
  let finish: Finish | undefined;
  for (const output of outputs) {
    const last = content.at(-1);
    if (output.kind === "text") {
      if (last?.type === "text") last.text += output.text;
      else content.push({ type: "text", text: output.text });
    } else if (output.kind === "reasoning") {
      if (last?.type === "thinking") last.thinking += output.text;
      else content.push({ type: "thinking", thinking: output.text, signature: "" });
    } else if (output.kind === "call")
      content.push({
        type: "tool_use",
        id: output.call.id,
        name: output.call.name,
        input: inputOf(output.call.arguments),
      });
    else finish = output;
  }
  return {
    id: messageId(),
    type: "message",
    role: "assistant",
    model: request.model,
    content,
    stop_reason: finish ? stopReason(finish) : "end_turn",
    stop_sequence: finish?.stopSequence ?? null,
    usage: usageOf(finish),
  };
}

/**
 * Writes a turn as the Messages API streams it: `message_start`; per block `content_block_start`, its deltas
 * (`thinking_delta`, `text_delta`, or a tool_use's whole `input_json_delta`) and `content_block_stop`, blocks never
 * interleaved and indexed in order; then `message_delta` with the stop reason and usage, and `message_stop`. Named
 * events, no `[DONE]`; a failure after the headers is an `error` event.
 */
export class MessagesEventWriter implements WireEncoder {
  readonly #id = messageId();
  #started = false;
  /** Index of the next block; the open thinking or text block, if any. */
  #index = 0;
  #open: "thinking" | "text" | undefined;

  constructor(readonly request: MessagesRequest) {}

  #event(type: string, fields: Record<string, unknown>): string {
    return `event: ${type}\ndata: ${JSON.stringify({ type, ...fields })}\n\n`;
  }

  #start(): string {
    if (this.#started) return "";
    this.#started = true;
    return this.#event("message_start", {
      message: {
        id: this.#id,
        type: "message",
        role: "assistant",
        model: this.request.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usageOf(undefined),
      },
    });
  }

  #closeOpen(): string {
    if (!this.#open) return "";
    this.#open = undefined;
    return this.#event("content_block_stop", { index: this.#index++ });
  }

  #textInto(kind: "thinking" | "text", text: string): string {
    let out = "";
    if (this.#open !== kind) {
      out += this.#closeOpen();
      this.#open = kind;
      out += this.#event("content_block_start", {
        index: this.#index,
        content_block:
          kind === "text" ? { type: "text", text: "" } : { type: "thinking", thinking: "", signature: "" },
      });
    }
    return (
      out +
      this.#event("content_block_delta", {
        index: this.#index,
        delta: kind === "text" ? { type: "text_delta", text } : { type: "thinking_delta", thinking: text },
      })
    );
  }

  write(output: TurnOutput): string {
    const out = this.#start();
    switch (output.kind) {
      case "text":
        return out + this.#textInto("text", output.text);
      case "reasoning":
        return out + this.#textInto("thinking", output.text);
      case "call": {
        const { id, name, arguments: args } = output.call;
        const closed = this.#closeOpen();
        const at = this.#index++;
        return (
          out +
          closed +
          this.#event("content_block_start", {
            index: at,
            content_block: { type: "tool_use", id, name, input: {} },
          }) +
          this.#event("content_block_delta", {
            index: at,
            delta: { type: "input_json_delta", partial_json: JSON.stringify(inputOf(args)) },
          }) +
          this.#event("content_block_stop", { index: at })
        );
      }
      case "finish":
        return (
          out +
          this.#closeOpen() +
          this.#event("message_delta", {
            delta: { stop_reason: stopReason(output), stop_sequence: output.stopSequence ?? null },
            usage: usageOf(output),
          }) +
          this.#event("message_stop", {})
        );
    }
  }

  end(): string {
    return "";
  }

  fail(error: unknown): string {
    return this.#start() + this.#closeOpen() + anthropicErrorEvent(turnFailure(error));
  }
}
