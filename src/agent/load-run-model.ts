import { needsLoading } from "../core/language-model.js";
import type { Emit, RunEnvironment } from "./run-environment.js";
import { StopRun, stopReasonOf } from "./stop-reason.js";

/**
 * Progress events at most this often: a person watching wants a few updates a second, and node-llama-cpp may report
 * dozens at once (a small file's tensors all arrive within a millisecond).
 */
export const MODEL_PROGRESS_EVERY_MS = 250;

/**
 * Before a run's first step: load the model if it is not ready yet (a LoadableModel), the wait reported as
 * `model-loading` events and ended by `model-loaded`. Resolves to a StopRun when the run must end instead — the model
 * could not be loaded (`model-error`, with its message) or the run was stopped meanwhile (the load itself goes on
 * for the runs after this one; this one does not wait for it).
 */
export async function loadRunModel(
  env: RunEnvironment,
  emit: Emit,
  signal: AbortSignal,
): Promise<StopRun | undefined> {
  const model = env.model;
  if (!needsLoading(model)) return undefined;
  const started = performance.now();
  let reportedAt = Number.NEGATIVE_INFINITY;
  let reported = 0;
  let over = false;
  emit({ type: "model-loading", model: model.id });
  const onProgress = (progress: number) => {
    const now = performance.now();
    // 1 is model-loaded's to say; a load that restarts its count (node-llama-cpp reports 1 first) never goes back.
    if (over || !(progress > reported && progress < 1) || now - reportedAt < MODEL_PROGRESS_EVERY_MS) return;
    reportedAt = now;
    reported = progress;
    emit({ type: "model-loading", model: model.id, progress: Math.round(progress * 100) / 100 });
  };
  let onAbort = () => {};
  const stopped = new Promise<StopRun>((resolve) => {
    onAbort = () => resolve(new StopRun(stopReasonOf(signal)));
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
  const loaded = model.load({ onProgress }).then(
    () => undefined,
    (error: unknown) =>
      new StopRun(
        "model-error",
        `The model could not be loaded: ${error instanceof Error ? error.message : String(error)}`,
      ),
  );
  try {
    const stop = await Promise.race([loaded, stopped]);
    if (stop) return stop;
  } finally {
    over = true;
    signal.removeEventListener("abort", onAbort);
  }
  emit({ type: "model-loaded", model: model.id, durationMs: Math.round(performance.now() - started) });
  return undefined;
}
