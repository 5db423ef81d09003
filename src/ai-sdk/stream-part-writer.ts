import type {
  LanguageModelV3FinishReason,
  LanguageModelV3StreamPart,
  LanguageModelV3Usage,
} from "@ai-sdk/provider";
import type { ModelEvent, ModelFinishReason, ModelUsage } from "../core/language-model.js";
import { generateCallId } from "../models/generate-call-id.js";

/**
 * What a call the parser could not read goes to the SDK as: the markup as the model wrote it, which is not JSON, so
 * the SDK's own parsing fails, `experimental_repairToolCall` gets it with the SDK's error, and without a repair the
 * model is told its call was invalid. Markup that happens to be JSON (an envelope whose call is malformed) goes as
 * a JSON string, and nothing at all as the parser's message: neither can pass as the arguments object of a tool.
 */
export function unreadableCallInput(raw: string | undefined, message: string): string {
  const text = raw?.trim() ? raw : message;
  try {
    JSON.parse(text);
    return JSON.stringify(text);
  } catch {
    return text;
  }
}

/**
 * Writes a turn's model events as AI SDK stream parts: text and reasoning in blocks (`-start`/`-delta`/`-end`, a new
 * block after each call), each call as `tool-input-start`, its argument deltas, `tool-input-end` and the `tool-call`
 * whose input is the arguments' JSON. A call the model's text holds but no parser could read (`call-error`) still
 * becomes a `tool-call`, with input that fails the SDK's parsing (see `unreadableCallInput`), so the SDK's repair
 * and error reporting see it; a call that was never started has no tool name (`""`).
 */
export class StreamPartWriter {
  readonly #emit: (part: LanguageModelV3StreamPart) => void;
  readonly #prefix: string;
  #textId: string | undefined;
  #reasoningId: string | undefined;
  #blocks = 0;
  /** Calls started and not yet ended: their name and the argument text streamed so far. */
  readonly #open = new Map<string, { name: string; args: string }>();
  /** Tool calls written (readable or not). */
  calls = 0;

  constructor(emit: (part: LanguageModelV3StreamPart) => void, idPrefix = "tb") {
    this.#emit = emit;
    this.#prefix = idPrefix;
  }

  write(event: ModelEvent): void {
    switch (event.type) {
      case "text-delta":
        if (event.text === "") return;
        this.#endReasoning();
        if (this.#textId === undefined) {
          this.#textId = `${this.#prefix}-text-${this.#blocks++}`;
          this.#emit({ type: "text-start", id: this.#textId });
        }
        this.#emit({ type: "text-delta", id: this.#textId, delta: event.text });
        return;
      case "reasoning-delta":
        if (event.text === "") return;
        this.#endText();
        if (this.#reasoningId === undefined) {
          this.#reasoningId = `${this.#prefix}-reasoning-${this.#blocks++}`;
          this.#emit({ type: "reasoning-start", id: this.#reasoningId });
        }
        this.#emit({ type: "reasoning-delta", id: this.#reasoningId, delta: event.text });
        return;
      case "call-start": {
        this.end();
        const id = event.id ?? generateCallId();
        this.#open.set(id, { name: event.name, args: "" });
        this.#emit({ type: "tool-input-start", id, toolName: event.name });
        return;
      }
      case "call-args-delta": {
        const open = event.id === undefined ? undefined : this.#open.get(event.id);
        if (!open || event.id === undefined || event.text === "") return;
        open.args += event.text;
        this.#emit({ type: "tool-input-delta", id: event.id, delta: event.text });
        return;
      }
      case "call-end": {
        const input =
          typeof event.arguments === "string" ? event.arguments : JSON.stringify(event.arguments ?? {});
        this.#call(event.id, event.name, input);
        return;
      }
      case "call-error": {
        const open = event.id === undefined ? undefined : this.#open.get(event.id);
        this.#call(event.id, event.name ?? open?.name ?? "", unreadableCallInput(event.raw, event.message));
        return;
      }
      case "finish":
        return;
    }
  }

  /** Ends the open text or reasoning block (before a call, or at the end of the turn). */
  end(): void {
    this.#endText();
    this.#endReasoning();
  }

  #call(eventId: string | undefined, toolName: string, input: string): void {
    this.end();
    const id = eventId ?? generateCallId();
    const open = this.#open.get(id);
    if (!open) this.#emit({ type: "tool-input-start", id, toolName });
    // Consumers that only follow the deltas still get the whole input when the format streamed none.
    if (!open?.args) this.#emit({ type: "tool-input-delta", id, delta: input });
    this.#emit({ type: "tool-input-end", id });
    this.#emit({ type: "tool-call", toolCallId: id, toolName, input });
    this.#open.delete(id);
    this.calls += 1;
  }

  #endText(): void {
    if (this.#textId === undefined) return;
    this.#emit({ type: "text-end", id: this.#textId });
    this.#textId = undefined;
  }

  #endReasoning(): void {
    if (this.#reasoningId === undefined) return;
    this.#emit({ type: "reasoning-end", id: this.#reasoningId });
    this.#reasoningId = undefined;
  }
}

/** Our finish reason in the AI SDK's shape (the unified reasons are the same six). */
export function toFinishReason(
  reason: ModelFinishReason,
  raw: string | undefined = reason,
): LanguageModelV3FinishReason {
  return { unified: reason, raw };
}

/** Our token counts in the AI SDK's shape; what a backend does not report stays undefined. */
export function toUsage(usage: ModelUsage | undefined): LanguageModelV3Usage {
  return {
    inputTokens: {
      total: usage?.inputTokens,
      noCache: undefined,
      cacheRead: undefined,
      cacheWrite: undefined,
    },
    outputTokens: { total: usage?.outputTokens, text: undefined, reasoning: usage?.reasoningTokens },
  };
}
