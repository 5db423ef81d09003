/**
 * node-llama-cpp can reject a promise nobody awaits when sampling fails inside a generation — e.g. "Unexpected empty
 * grammar stack" when a token bias leaves the grammar no legal token — which would end the whole process. While at
 * least one generation runs, such rejections are caught here and fail the running generations instead; any other
 * unhandled rejection is re-thrown as Node would (an uncaught exception).
 */
const active = new Set<(error: Error) => void>();

const NATIVE_FAILURE = /grammar|sampler|sampling|llama_|decode/i;

function onUnhandledRejection(reason: unknown): void {
  const message = reason instanceof Error ? reason.message : String(reason);
  if (!NATIVE_FAILURE.test(message) || active.size === 0) {
    process.nextTick(() => {
      throw reason;
    });
    return;
  }
  // The rejection names no generation; every running one may be affected, so each is told.
  const error = reason instanceof Error ? reason : new Error(message);
  for (const fail of active) fail(error);
}

/** Run `generate` with the guard installed; `fail` is called if a node-llama-cpp failure escapes as a rejection. */
export async function guardNativeRejections<T>(
  fail: (error: Error) => void,
  generate: () => Promise<T>,
): Promise<T> {
  if (active.size === 0) process.on("unhandledRejection", onUnhandledRejection);
  active.add(fail);
  try {
    return await generate();
  } finally {
    active.delete(fail);
    if (active.size === 0) process.off("unhandledRejection", onUnhandledRejection);
  }
}
