import type { StepRecord } from "../store/store.js";
import { completeStep } from "./complete-step.js";
import { loadRunModel } from "./load-run-model.js";
import type { Emit, RunEnvironment } from "./run-environment.js";
import type { RunSession } from "./run-session.js";
import { runStep } from "./run-step.js";
import type { RunView } from "./run-view.js";
import { type RunEndPatch, runEndPatch, StopRun, stopReasonOf } from "./stop-reason.js";

/**
 * Drive a run until it pauses or ends: finish a step left open by a pause or a crash, then step after step until the
 * model answers or a limit, a failure or the caller stops it. The total time limit counts only time driven (paused
 * time is not), each step has its own; both arrive as aborts carrying their stop reason.
 */
export async function driveRun(input: {
  env: RunEnvironment;
  session: RunSession;
  emit: Emit;
  /** A step recorded but not finished (resume). */
  open: StepRecord | undefined;
  signal: AbortSignal | undefined;
}): Promise<RunView> {
  const { env, session, emit, signal } = input;
  const { limits } = session;
  const total = new AbortController();
  const totalTimer = setTimeout(
    () => total.abort(new StopRun("timeout")),
    Math.max(0, limits.totalTimeoutMs - session.run.activeMs),
  );
  const onAbort = () => total.abort(new StopRun("aborted"));
  if (signal?.aborted) onAbort();
  else signal?.addEventListener("abort", onAbort, { once: true });

  /** Report the end of the run once its patch has committed. */
  const announce = (patch: RunEndPatch): RunView => {
    session.applyPatch(patch);
    if (patch.error !== undefined) emit({ type: "error", message: patch.error });
    emit({ type: "run-finished", status: patch.status, stopReason: patch.stopReason, answer: patch.answer });
    return session.view();
  };
  const end = async (stop: StopRun): Promise<RunView> => {
    const patch = runEndPatch({
      reason: stop.reason,
      answer: null,
      error: stop.message === undefined ? undefined : env.clean(stop.message),
      activeMs: session.activeMs(),
    });
    await env.store.updateRun(session.id, patch);
    return announce(patch);
  };

  try {
    if (input.open) {
      const outcome = await completeStep({
        env,
        session,
        step: input.open.step,
        parseErrors: input.open.parseErrors,
        signal: total.signal,
        emit,
      });
      if (outcome === "paused") return session.view();
      if (outcome instanceof StopRun) return await end(outcome);
    }
    // The model is loaded (when it still has to be) once a step needs it: a resumed run's approved calls run first.
    let modelReady = false;
    for (;;) {
      if (total.signal.aborted) return await end(new StopRun(stopReasonOf(total.signal)));
      if (session.run.stepCount >= limits.maxSteps) return await end(new StopRun("max-steps"));
      if (!modelReady) {
        const stop = await loadRunModel(env, emit, total.signal);
        if (stop) return await end(stop);
        modelReady = true;
      }
      const step = new AbortController();
      const stepTimer = setTimeout(() => step.abort(new StopRun("step-timeout")), limits.stepTimeoutMs);
      const forward = () => step.abort(total.signal.reason);
      total.signal.addEventListener("abort", forward, { once: true });
      try {
        const result = await runStep({ env, session, signal: step.signal, emit });
        if (result === "paused") return session.view();
        if (result instanceof StopRun) return await end(result);
        if (result !== "continue") return announce(result.answered);
      } finally {
        clearTimeout(stepTimer);
        total.signal.removeEventListener("abort", forward);
      }
    }
  } catch (error) {
    // A store failure: leave the run as it is (resumable once the problem is fixed) but release it.
    await env.store.updateRun(session.id, { owner: null, activeMs: session.activeMs() }).catch(() => {});
    throw error;
  } finally {
    clearTimeout(totalTimer);
    signal?.removeEventListener("abort", onAbort);
    // Nobody here drives the run any more: a lease still held (a failure left it running) is not renewed, so the run
    // is taken over once it expires.
    env.store.leases?.forget(session.id);
  }
}
