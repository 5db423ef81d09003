import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { AgentMessage } from "./agent-message.js";

/** auto: the model decides; required: it must call some tool; none: it must not; { name }: it must call that tool. */
export type ToolChoice = "auto" | "required" | "none" | { name: string };

export interface ModelRequest {
  messages: readonly AgentMessage[];
  /** The tools offered this turn, as MCP objects (already filtered by allowlist and local-only mode). */
  tools: readonly Tool[];
  toolChoice: ToolChoice;
  /**
   * `false`: at most one call this turn, told to the model (OpenAI `parallel_tool_calls`, Anthropic
   * `disable_parallel_tool_use`, a text protocol's single-call instructions) and generation ends once that call is
   * complete, so no tokens go to calls that would be dropped. Absent: the model's configured default.
   */
  parallelToolCalls?: boolean;
  /**
   * Most tokens to generate this turn, when the caller has its own budget (an OpenAI client's `max_tokens`): the
   * smaller of it and the model's configured limit applies.
   */
  maxTokens?: number;
  /** Per-request sampling (an OpenAI client's temperature, seed, stop…): each value set overrides the model's default for this request only. */
  sampling?: SamplingSettings;
  /**
   * The shape of a text answer (OpenAI's `response_format`). A backend that cannot honour a JSON format throws an
   * `UnsupportedSettingError` before generating rather than answering free text.
   */
  responseFormat?: ResponseFormat;
  /** Fires on step timeout, total timeout and cancellation; a backend stops generating when it does. */
  signal: AbortSignal;
  /**
   * Set by the loop for backends that run tool handlers while generating (node-llama-cpp's function calling). Hand
   * it a call the moment the model has made it, instead of streaming call events for it: the loop validates it,
   * applies the approval policy, records it and — when it needs no approval — runs it (at most once, with events) and
   * answers `done` with the observation to feed back, so generation continues. `pending` means: stop generating now
   * and finish the turn (reason `tool-calls`); the loop owns the call (it waits for approval, or the run must stop)
   * and will call `stream` again with the results in `messages`.
   */
  executeCall?: (call: ModelCallRequest) => Promise<ExecuteCallOutcome>;
}

/** Sampling settings a request may carry; ranges as OpenAI's (temperature 0–2, topP 0–1, penalties −2–2). */
export interface SamplingSettings {
  temperature?: number;
  topP?: number;
  seed?: number;
  /**
   * Stop strings: the answer's text ends before the first of them and the turn finishes with reason `stop`. They
   * apply to the text shown as content, never to the markup of a tool call a backend is parsing.
   */
  stop?: readonly string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
}

/** `json_object`: the answer is a JSON object; `json_schema`: a JSON value valid against `schema`. */
export type ResponseFormat =
  | { type: "text" }
  | { type: "json_object" }
  | { type: "json_schema"; name: string; schema: Record<string, unknown>; strict?: boolean };

/** A call handed to `ModelRequest.executeCall`. */
export interface ModelCallRequest {
  id?: string;
  name: string;
  arguments: Record<string, unknown>;
}

export type ExecuteCallOutcome = { status: "done"; result: CallToolResult } | { status: "pending" };

export interface ModelUsage {
  inputTokens?: number;
  outputTokens?: number;
  reasoningTokens?: number;
}

/** Why the model stopped generating this turn. */
export type ModelFinishReason = "stop" | "tool-calls" | "length" | "content-filter" | "error" | "other";

/**
 * What a model streams for one turn, in order. Calls arrive as call-start / call-args-delta / call-end whether the
 * backend has native tool calling or parses a text protocol itself (a model in text mode looks the same as a native
 * one). `call-end.arguments` may be a string — the raw argument text, as OpenAI-style APIs stream it — decoded by the
 * consumer with `decodeCallArguments` (a failure becomes an error observation for the model). `call-error` is markup
 * that looked like a call but cannot be read (malformed, or cut off by the end of the output): with the `id` of a
 * started call that call is invalid; without one, the turn carries an error the model is told about.
 */
export type ModelEvent =
  | { type: "text-delta"; text: string }
  | { type: "reasoning-delta"; text: string }
  | { type: "call-start"; id?: string; name: string }
  | { type: "call-args-delta"; id?: string; text: string }
  /** `repaired`: the backend's parser had to mend the call's text to read it (jsonrepair, an unclosed tag). */
  | { type: "call-end"; id?: string; name: string; arguments: unknown; repaired?: boolean }
  /** `raw`: the markup as the model wrote it, when the backend parsed it from text (for a repair that reads it). */
  | { type: "call-error"; id?: string; name?: string; message: string; raw?: string }
  | {
      type: "finish";
      reason: ModelFinishReason;
      usage?: ModelUsage;
      /** With reason `stop`: the request's stop string the answer ended at, where the backend knows which. */
      stopSequence?: string;
    };

/**
 * The interface the loop drives. Implementations (node-llama-cpp, OpenAI chat, Anthropic, text completions, replay)
 * turn one request into one streamed turn. Throwing (or an async iterator that rejects) ends the run with
 * stop reason `model-error`; the message is shown to the user, so make it say what to fix.
 */
export interface LanguageModel {
  /** For traces and run records, e.g. `openai:gpt-4.1` or `replay:turns.jsonl`. */
  readonly id: string;
  stream(request: ModelRequest): AsyncIterable<ModelEvent>;
}

/**
 * A model made ready at first use: a GGUF read from disk and handed to llama.cpp, a server's named model built on
 * demand. The agent loop loads one that is not `loaded` before a run's first step, so the wait shows in the run's
 * events (`model-loading`, with progress where the backend reports it, then `model-loaded`) and a model that cannot be
 * loaded ends the run (stop reason `model-error`) with the message. A model without these members is ready at once.
 */
export interface LoadableModel extends LanguageModel {
  /** True once loaded: a run has nothing to wait for. */
  readonly loaded: boolean;
  /** Load it (once; callers while it loads share that load). `onProgress` gets 0…1 where the backend reports it. */
  load(options?: { onProgress?: (progress: number) => void }): Promise<unknown>;
}

/** Whether the model still has to be loaded before it can answer (see LoadableModel). */
export function needsLoading(model: LanguageModel): model is LoadableModel {
  const loadable = model as Partial<LoadableModel>;
  return typeof loadable.load === "function" && loadable.loaded === false;
}
