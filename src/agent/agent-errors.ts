import { ToolbridgeError } from "../core/toolbridge-error.js";

export class RunNotFoundError extends ToolbridgeError {
  override name = "RunNotFoundError";
  constructor(readonly runId: string) {
    super(
      `No run with id "${runId}" in this database; list runs with \`toolbridge runs list\` (and check --db).`,
    );
  }
}

/** A run that cannot do what was asked in its current state (resume a finished run, decide a non-pending call …). */
export class RunStateError extends ToolbridgeError {
  override name = "RunStateError";

  /** A cancel of a run that is over: the one wording, wherever a cancel is refused for it (agent, server). */
  static nothingToCancel(run: { id: string; status: string; stopReason: string | null }): RunStateError {
    return new RunStateError(
      `Run ${run.id} is already ${run.status} (${run.stopReason}); there is nothing to cancel.`,
    );
  }
}

/**
 * Why a decision cannot be accepted — what a caller branches on (the server maps each to its HTTP status in one
 * table, `DECISION_ERROR_STATUS`), the message says it in words:
 * - `unknown-call`: the run has no such call;
 * - `duplicate-call`: one call decided twice in one batch;
 * - `already-decided`: the call was approved or denied before (the message names by whom and when);
 * - `not-pending`: the call never waited for a decision, or no longer does (it ran, was refused by policy …);
 * - `run-over`: the run finished or was stopped, so its calls can no longer be decided;
 * - `tool-unavailable`: edited arguments for a tool this agent no longer offers;
 * - `invalid-arguments`: edited arguments the tool's schema rejects.
 */
export type DecisionErrorReason =
  | "unknown-call"
  | "duplicate-call"
  | "already-decided"
  | "not-pending"
  | "run-over"
  | "tool-unavailable"
  | "invalid-arguments";

/** A decision that cannot be accepted; nothing was recorded. `reason` says why, for a caller to branch on. */
export class DecisionError extends ToolbridgeError {
  override name = "DecisionError";
  constructor(
    readonly reason: DecisionErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/** Agent options that contradict each other; no agent was made. */
export class AgentConfigError extends ToolbridgeError {
  override name = "AgentConfigError";
}
