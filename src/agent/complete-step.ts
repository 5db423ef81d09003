import type { AgentMessage } from "../core/agent-message.js";
import type { RunPatch, ToolCallFinish, ToolCallRecord } from "../store/store.js";
import { errorResult } from "../tools/normalize-tool-result.js";
import type { CollectedTurn } from "./collect-model-turn.js";
import {
  claimApprovedCalls,
  emitToolResult,
  type FinishedCall,
  runClaimedCalls,
} from "./run-claimed-calls.js";
import type { Emit, RunEnvironment } from "./run-environment.js";
import { applyFinish, type RunSession } from "./run-session.js";
import { StopRun } from "./stop-reason.js";

/** Outcomes that count as a failed call for `maxConsecutiveFailures`. */
const FAILED_OUTCOMES = new Set([
  "tool-error",
  "invalid-input",
  "unknown-tool",
  "timeout",
  "cancelled",
  "limited",
  "invalid-output",
  "interrupted",
]);

export type StepOutcome = "paused" | "continue" | StopRun;

/** Why a run stops when the model's turn ended at its token limit in the middle of a tool call. */
export const LENGTH_CUT_CALL =
  "The model reached its token limit (maxTokens) in the middle of a tool call; raise the limit so that the call fits.";

/**
 * Bring a step to its end: settle calls interrupted by a crash, run the claimed ones (concurrently, each result
 * committed as its handler returns; the last one in the transaction that closes the step), pause if decisions are
 * missing, else append the observations in call order and update the run's counters.
 *
 * `claimed`: the calls the turn just recorded as `executing`. Without it the step is being resumed: calls found
 * `executing` were cut off by a crash and become `interrupted`; `approved` ones are claimed now.
 */
export async function completeStep(input: {
  env: RunEnvironment;
  session: RunSession;
  step: number;
  parseErrors: readonly string[];
  signal: AbortSignal;
  emit: Emit;
  turn?: CollectedTurn;
  claimed?: ToolCallRecord[];
}): Promise<StepOutcome> {
  const { env, session, step, emit } = input;
  const store = env.store;
  let calls = session.callsOf(step);
  let toRun = input.claimed;
  if (!toRun) {
    for (const call of calls.filter((c) => c.state === "executing")) {
      const finish: ToolCallFinish = {
        callId: call.id,
        state: "interrupted",
        outcome: "interrupted",
        result: env.executor.observe(
          errorResult(
            `The call to ${call.name} was interrupted: the process stopped while it ran. It was not run again because it may already have taken effect; check before calling it again.`,
          ),
        ),
        durationMs: null,
      };
      await store.finishToolCall(session.id, call.id, finish);
      applyFinish(call, finish);
      emitToolResult(emit, step, call, finish);
    }
    toRun = await claimApprovedCalls({ env, session, calls });
  }
  let last: FinishedCall | undefined;
  for (;;) {
    const pausing = calls.some((c) => c.state === "pending");
    last = await runClaimedCalls({
      env,
      session,
      step,
      calls: toRun,
      signal: input.signal,
      emit,
      deferLast: !pausing,
    });
    if (!pausing) break;
    // Decisions may have been recorded while the calls ran (decide() needs no pause): ask the store, the one place
    // that knows, before pausing. This read happens only on the way to a pause.
    calls = await store.listToolCalls(session.id, step);
    session.replaceCallsOf(step, calls);
    const pending = calls.filter((c) => c.state === "pending");
    if (pending.length > 0) {
      const patch = {
        status: "paused",
        stopReason: "awaiting-approval",
        owner: null,
        activeMs: session.activeMs(),
      } satisfies RunPatch;
      await store.updateRun(session.id, patch);
      session.applyPatch(patch);
      emit({
        type: "run-paused",
        pending: pending.map((c) => ({ callId: c.id, name: c.name, arguments: c.arguments })),
      });
      return "paused";
    }
    toRun = await claimApprovedCalls({ env, session, calls });
  }

  const messages: AgentMessage[] = calls.map((c) => ({
    role: "tool",
    callId: c.id,
    name: c.name,
    result: c.result ?? errorResult(`The call to ${c.name} has no result.`),
  }));
  const { parseErrors } = input;
  if (parseErrors.length) {
    messages.push({
      role: "user",
      content: `[tool call error] ${parseErrors.join(" ")} Write the tool call again in the required format, or answer without it.`,
    });
  }
  const ran = calls.filter((c) => c.state === "done" || c.state === "interrupted").length;
  const hadInvalid = parseErrors.length > 0 || calls.some((c) => c.state === "invalid");
  const failed = (c: ToolCallRecord) =>
    c.state === "invalid" || (c.outcome !== null && FAILED_OUTCOMES.has(c.outcome));
  const allFailed = (calls.length > 0 || parseErrors.length > 0) && calls.every(failed);
  const { run } = session;
  const patch = {
    toolCallCount: run.toolCallCount + ran,
    repairs: run.repairs + (hadInvalid ? 1 : 0),
    consecutiveFailures: allFailed ? run.consecutiveFailures + 1 : 0,
    activeMs: session.activeMs(),
  } satisfies RunPatch;
  await store.finishStep({
    runId: session.id,
    conversationId: run.conversationId,
    step,
    messages,
    run: patch,
    ...(last ? { results: [last.finish] } : {}),
  });
  session.applyPatch(patch);
  session.messages.push(...messages);
  if (last) emitToolResult(emit, step, last.call, last.finish);
  emit({
    type: "step-finished",
    step,
    finishReason: input.turn?.finishReason ?? "tool-calls",
    ...(input.turn?.usage ? { usage: input.turn.usage } : {}),
    toolCalls: calls.length,
  });
  const { limits } = session;
  if (calls.some((c) => c.state === "refused")) return new StopRun("max-tool-calls");
  // A call the token limit cut off would be cut again at every retry: the limit is the reason, said once.
  if (input.turn?.finishReason === "length" && parseErrors.length > 0)
    return new StopRun("length", LENGTH_CUT_CALL);
  if (hadInvalid && patch.repairs > limits.maxRepairs) return new StopRun("max-repairs");
  if (patch.consecutiveFailures >= limits.maxConsecutiveFailures)
    return new StopRun("max-consecutive-failures");
  return "continue";
}
