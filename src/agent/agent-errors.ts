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
}

/** A decision that cannot be accepted; nothing was recorded. */
export class DecisionError extends ToolbridgeError {
  override name = "DecisionError";
}

/** Agent options that contradict each other; no agent was made. */
export class AgentConfigError extends ToolbridgeError {
  override name = "AgentConfigError";
}
