import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ModelFinishReason, ModelUsage } from "../core/language-model.js";
import type { RunStatus, StopReason } from "../store/store.js";

export interface PendingCall {
  callId: string;
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * Everything that happens in a run, in order. The CLI, the WebSocket API, the OpenAI-compatible stream, the web UI
 * and the JSONL trace are all views of this one union. `at` is epoch milliseconds.
 */
export type AgentEvent = { runId: string; at: number } & (
  | { type: "run-started"; conversationId: string; model: string }
  | { type: "run-resumed"; step: number }
  /**
   * The run's model is being loaded before its first step (a GGUF read from disk, a server's model made on demand):
   * one without `progress` when loading starts, then `progress` 0…1 where the backend reports it (at most every
   * 250 ms). `model` is the model's id, as in run-started. A model that cannot be loaded ends the run instead: an
   * `error` with the message, then run-finished (`stopped`, `model-error`).
   */
  | { type: "model-loading"; model: string; progress?: number }
  /** The model finished loading, `durationMs` after the first model-loading event; the first step follows. */
  | { type: "model-loaded"; model: string; durationMs: number }
  /** `tools`: the tools offered this turn, when a tool selection picks them per turn. */
  | { type: "step-started"; step: number; tools?: string[] }
  | { type: "text-delta"; step: number; text: string }
  | { type: "reasoning-delta"; step: number; text: string }
  | { type: "call-started"; step: number; callId: string; name: string }
  | { type: "call-args-delta"; step: number; callId: string; text: string }
  | { type: "call-finished"; step: number; callId: string; name: string; arguments: Record<string, unknown> }
  /** A call the loop rejected before running it (unknown tool, unparsable or invalid arguments, not allowed). */
  | { type: "call-invalid"; step: number; callId: string; name: string; message: string }
  | { type: "approval-requested"; step: number; calls: PendingCall[] }
  | {
      type: "approval-decided";
      callId: string;
      decision: "approved" | "denied";
      by: string;
      reason?: string;
      arguments?: Record<string, unknown>;
    }
  | { type: "tool-started"; step: number; callId: string; name: string }
  | {
      type: "tool-result";
      step: number;
      callId: string;
      name: string;
      status: string;
      result: CallToolResult;
      durationMs: number | null;
    }
  | { type: "error"; step?: number; message: string }
  | {
      type: "step-finished";
      step: number;
      finishReason: ModelFinishReason;
      usage?: ModelUsage;
      toolCalls: number;
    }
  | { type: "run-paused"; pending: PendingCall[] }
  | { type: "run-finished"; status: RunStatus; stopReason: StopReason; answer: string | null }
);

export type AgentEventType = AgentEvent["type"];

/** Helper type for building events without the common fields. */
export type AgentEventBody = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, "runId" | "at">
    : never
  : never;
