import type { ModelEvent, ModelFinishReason, ToolChoice } from "../../core/language-model.js";
import { generateCallId } from "../../models/generate-call-id.js";
import { decodeCallArguments } from "../../protocols/decode-call-arguments.js";

/** One finished tool call: `arguments` always a JSON text, `"{}"` for none. */
export interface TurnCall {
  /** Counts the calls of the turn from 0. */
  index: number;
  id: string;
  name: string;
  arguments: string;
}

/** Tokens of one turn; 0 where a backend does not say. */
export interface TurnUsage {
  inputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
}

export type TurnFinishReason = "stop" | "length" | "tool_calls" | "content_filter";

/** What a model turn is on every wire (Chat Completions, Responses, Messages): each API only writes these out. */
export type TurnOutput =
  | { kind: "text"; text: string }
  | { kind: "reasoning"; text: string }
  | { kind: "call"; call: TurnCall }
  | {
      kind: "finish";
      reason: TurnFinishReason;
      usage: TurnUsage;
      /** The request's stop string the answer ended at, where the backend says which. */
      stopSequence?: string;
    };

/**
 * `prefix` + alphanumerics (`call_` for OpenAI's APIs, `toolu_` for Anthropic's): ids a backend made that way are kept,
 * bare alphanumeric ones get the prefix, others (upstream ids of another shape, protocol ids) are re-minted.
 */
function wireCallId(id: string | undefined, prefix: string, used: Set<string>): string {
  const alphanumeric = (text: string) => /^[A-Za-z0-9]+$/.test(text);
  let candidate =
    id === undefined
      ? undefined
      : id.startsWith(prefix) && alphanumeric(id.slice(prefix.length))
        ? id
        : alphanumeric(id)
          ? `${prefix}${id}`
          : undefined;
  while (candidate === undefined || used.has(candidate)) candidate = `${prefix}${generateCallId()}`;
  used.add(candidate);
  return candidate;
}

function finishReason(reason: ModelFinishReason, calls: number): TurnFinishReason {
  if (calls > 0) return "tool_calls";
  if (reason === "length") return "length";
  if (reason === "content-filter") return "content_filter";
  return "stop";
}

/**
 * Reads a LanguageModel's turn as what every /v1 API carries: text, reasoning, whole tool calls (each handed over only
 * once complete, so its arguments go out in one piece and calls never interleave), and the finish. The server runs no
 * tool: calls go back to the client. `none` drops any call a native model makes anyway; `parallelToolCalls: false`
 * keeps the first; a call the model botched (`call-error`) is not a call the client can run, so it is dropped. The one
 * place these rules live for all three APIs.
 */
export class TurnReader {
  #calls = 0;
  readonly #ids = new Set<string>();
  constructor(
    readonly options: { toolChoice: ToolChoice; parallelToolCalls: boolean; callIdPrefix: string },
  ) {}

  get calls(): number {
    return this.#calls;
  }

  read(event: ModelEvent): TurnOutput | undefined {
    switch (event.type) {
      case "text-delta":
        return event.text ? { kind: "text", text: event.text } : undefined;
      case "reasoning-delta":
        return event.text ? { kind: "reasoning", text: event.text } : undefined;
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
        const call: TurnCall = {
          index: this.#calls,
          id: wireCallId(event.id, this.options.callIdPrefix, this.#ids),
          name: event.name,
          arguments: args,
        };
        this.#calls += 1;
        return { kind: "call", call };
      }
      case "finish":
        return {
          kind: "finish",
          reason: finishReason(event.reason, this.#calls),
          ...(event.stopSequence !== undefined && this.#calls === 0
            ? { stopSequence: event.stopSequence }
            : {}),
          usage: {
            inputTokens: event.usage?.inputTokens ?? 0,
            outputTokens: event.usage?.outputTokens ?? 0,
            reasoningTokens: event.usage?.reasoningTokens ?? 0,
          },
        };
      default:
        // call-start / call-args-delta: the call is sent whole at call-end.
        return undefined;
    }
  }
}
