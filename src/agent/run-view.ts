import type { CallToolResult } from "@modelcontextprotocol/server";
import type { RunRecord, RunStatus, RunStore, StopReason, ToolCallRecord } from "../store/store.js";
import { RunNotFoundError } from "./agent-errors.js";
import type { PendingCall } from "./events.js";

export interface ApprovalView {
  policy: "always" | "never" | "ask";
  decision: "pending" | "approved" | "denied";
  by: string | null;
  at: string | null;
  reason: string | null;
  /** Present when a person approved with edited arguments. */
  originalArguments?: Record<string, unknown>;
}

export interface CallView {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /** null until the call has run (or was refused). */
  result: CallToolResult | null;
  /** null when no approval was involved. */
  approval: ApprovalView | null;
}

/** The `--json` shape of `run`, `runs show` and `runs resume`; also what a library caller gets back. */
export interface RunView {
  runId: string;
  status: RunStatus;
  stopReason: StopReason | null;
  answer: string | null;
  /** Why a stopped run stopped, in words (the model's failure, a model that could not be loaded …); null otherwise. */
  error: string | null;
  steps: Array<{ calls: CallView[] }>;
  pending: PendingCall[];
}

function toCallView(call: ToolCallRecord): CallView {
  let approval: ApprovalView | null = null;
  if (call.approval) {
    approval = {
      policy: call.approval.policy,
      decision: call.approval.decision,
      by: call.approval.decidedBy,
      at: call.approval.decidedAt,
      reason: call.approval.reason,
    };
    if (call.approval.originalArguments) approval.originalArguments = call.approval.originalArguments;
  }
  return { id: call.id, name: call.name, arguments: call.arguments, result: call.result, approval };
}

export async function buildRunView(store: RunStore, runId: string): Promise<RunView> {
  const run = await store.getRun(runId);
  if (!run) throw new RunNotFoundError(runId);
  const [steps, calls] = await Promise.all([store.listSteps(runId), store.listToolCalls(runId)]);
  return toRunView(
    run,
    steps.map((s) => s.step),
    calls,
  );
}

/** The view of a run from records already at hand (a driving run keeps them in memory): steps in order, calls in (step, position) order. */
export function toRunView(
  run: Pick<RunRecord, "id" | "status" | "stopReason" | "answer" | "error">,
  steps: readonly number[],
  calls: readonly ToolCallRecord[],
): RunView {
  return {
    runId: run.id,
    status: run.status,
    stopReason: run.stopReason,
    answer: run.answer,
    error: run.error,
    steps: steps.map((step) => ({ calls: calls.filter((c) => c.step === step).map(toCallView) })),
    pending: calls
      .filter((c) => c.state === "pending")
      .map((c) => ({ callId: c.id, name: c.name, arguments: c.arguments })),
  };
}
