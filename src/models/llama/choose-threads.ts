import os from "node:os";

/** Below this many parameters a model decodes fastest on one thread (thread sync costs more than the matmuls). */
export const TINY_MODEL_PARAMETERS = 50_000_000;

/**
 * Threads for a model's contexts. Measured on 2 cores (../shared/notes/node-llama-cpp.md): a 135k-parameter model
 * decodes at ~5,000 tok/s on 1 thread and ~4 tok/s with node-llama-cpp's default of 4 — oversubscription and sync
 * overhead dominate tiny models. So: an explicit request is honoured up to the cores available; tiny models get 1;
 * everything else gets the cores available, never more.
 */
export function chooseThreads(
  parameters: number | undefined,
  requested?: number,
  cores = os.availableParallelism(),
): number {
  const available = Math.max(1, cores);
  if (requested !== undefined) return Math.max(1, Math.min(Math.floor(requested), available));
  if (parameters !== undefined && parameters < TINY_MODEL_PARAMETERS) return 1;
  return available;
}
