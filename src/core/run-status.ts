/** The states a run and its tool calls go through: shared by the loop, the stores and every view of a run. */

export type RunStatus = "running" | "paused" | "finished" | "stopped";

/** Why a run is where it is. `awaiting-approval` belongs to paused runs; every other reason ends a run. */
export type StopReason =
  | "final-answer"
  | "awaiting-approval"
  | "max-steps"
  | "max-tool-calls"
  | "step-timeout"
  | "timeout"
  | "max-consecutive-failures"
  | "max-repairs"
  | "model-error"
  | "aborted"
  | "length"
  | "interrupted";

/**
 * Life of a tool call. `invalid`, `denied`, `refused` (over the tool-call limit), `done` and `interrupted` are final
 * and carry a result. `executing` is written (and committed) before the handler starts; a call found `executing`
 * after a crash is turned into `interrupted`, never re-run.
 */
export type ToolCallState =
  | "invalid"
  | "pending"
  | "approved"
  | "denied"
  | "refused"
  | "executing"
  | "done"
  | "interrupted";

export type ApprovalPolicyValue = "always" | "never" | "ask";
