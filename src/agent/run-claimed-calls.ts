import type { ToolCallFinish, ToolCallRecord } from "../store/store.js";
import { gateCall } from "../tools/call-gate.js";
import { ToolNotFoundError } from "../tools/errors.js";
import { errorResult } from "../tools/normalize-tool-result.js";
import type { ExecuteOptions, ToolCallOutcome } from "../tools/tool-executor.js";
import { DRY_RUN_APPROVAL } from "./classify-calls.js";
import type { Emit, RunEnvironment } from "./run-environment.js";
import { applyFinish, type RunSession } from "./run-session.js";

/** A call's handler has returned; its end is not committed yet. */
export interface FinishedCall {
  call: ToolCallRecord;
  finish: ToolCallFinish;
}

/** approved → executing for the step's approved calls, in one committed transaction; returns those claimed. */
export async function claimApprovedCalls(input: {
  env: RunEnvironment;
  session: RunSession;
  calls: readonly ToolCallRecord[];
}): Promise<ToolCallRecord[]> {
  const approved = input.calls.filter((c) => c.state === "approved");
  if (approved.length === 0) return [];
  const ids = new Set(
    await input.env.store.claimToolCalls(
      input.session.id,
      approved.map((c) => c.id),
    ),
  );
  const at = new Date().toISOString();
  const claimed = approved.filter((c) => ids.has(c.id));
  for (const call of claimed) {
    call.state = "executing";
    call.startedAt = at;
  }
  return claimed;
}

/**
 * Run claimed calls concurrently. Each result is committed as its handler returns — except, with `deferLast`, the
 * last one to finish: it is returned uncommitted, for the transaction that closes the step (committed at once,
 * before anything about it is reported).
 */
export async function runClaimedCalls(input: {
  env: RunEnvironment;
  session: RunSession;
  step: number;
  calls: readonly ToolCallRecord[];
  signal: AbortSignal;
  emit: Emit;
  deferLast: boolean;
}): Promise<FinishedCall | undefined> {
  let outstanding = input.calls.length;
  let last: FinishedCall | undefined;
  await Promise.all(
    input.calls.map(async (call) => {
      const finish = await executeClaimedCall({ ...input, call });
      outstanding -= 1;
      if (input.deferLast && outstanding === 0) {
        // In memory now, for the observations of the step's close; reported once that has committed.
        applyFinish(call, finish);
        last = { call, finish };
        return;
      }
      await input.env.store.finishToolCall(input.session.id, call.id, finish);
      applyFinish(call, finish);
      emitToolResult(input.emit, input.step, call, finish);
    }),
  );
  return last;
}

/** Run one claimed call's handler (the claim is committed: it may start) and return its end, not yet committed. */
async function executeClaimedCall(input: {
  env: RunEnvironment;
  step: number;
  call: ToolCallRecord;
  signal: AbortSignal;
  emit: Emit;
}): Promise<ToolCallFinish> {
  const { env, call } = input;
  input.emit({ type: "tool-started", step: input.step, callId: call.id, name: call.name });
  const started = performance.now();
  // Every claimed call was approved (by its policy or a person's decision); asked again now, the gate still refuses
  // a tool switched off or set to `never` since then, or gone.
  const gate = gateCall({
    name: call.name,
    arguments: call.arguments,
    tool: env.tool(call.name),
    approval: env.approval,
    caller: { decision: "approved", dryRun: env.dryRun },
    toolNames: () => env.toolNames(),
  });
  if (gate.action === "refuse") {
    return {
      callId: call.id,
      state: "done",
      outcome: gate.reason === "unknown" ? "unknown-tool" : "denied",
      result: env.executor.observe(errorResult(gate.message)),
      durationMs: 0,
    };
  }
  let outcome: Pick<ToolCallOutcome, "status" | "result">;
  try {
    const options: ExecuteOptions = { signal: input.signal };
    if (env.userId !== undefined) options.userId = env.userId;
    if (env.dryRun) options.dryRun = true;
    // Approved only because the run is a dry run (nobody was asked): it reports what it would do, read-only or not.
    if (env.dryRun && call.approval?.decidedBy === "policy" && call.approval.reason === DRY_RUN_APPROVAL)
      options.describeInstead = true;
    outcome = await env.executor.execute(
      { name: call.name, arguments: call.arguments, callId: call.id, runId: call.runId },
      options,
    );
  } catch (error) {
    // The executor reports everything a tool does as an outcome; what it throws is a tool gone since the call was
    // classified (a mounted server's tool list changed), or a fault of its own.
    const message = error instanceof Error ? error.message : String(error);
    outcome = {
      status: error instanceof ToolNotFoundError ? "unknown-tool" : "tool-error",
      result: env.executor.observe(errorResult(message)),
    };
  }
  return {
    callId: call.id,
    state: "done",
    outcome: outcome.status,
    // Already redacted and cut by the executor (once: doing it again would cut the truncation note itself).
    result: outcome.result,
    durationMs: Math.round(performance.now() - started),
  };
}

export function emitToolResult(emit: Emit, step: number, call: ToolCallRecord, finish: ToolCallFinish): void {
  emit({
    type: "tool-result",
    step,
    callId: call.id,
    name: call.name,
    status: finish.outcome,
    result: finish.result,
    durationMs: finish.durationMs,
  });
}
