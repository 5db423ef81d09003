import type { RunPatch, StopReason } from "../store/store.js";

/** Why a run must stop, carried as an abort reason or returned by a step. */
export class StopRun {
  constructor(
    readonly reason: StopReason,
    readonly message?: string,
  ) {}
}

/** The stop reason an aborted signal carries: a limit's (timeout, step-timeout) or, for a caller's abort, `aborted`. */
export function stopReasonOf(signal: AbortSignal): StopReason {
  return signal.reason instanceof StopRun ? signal.reason.reason : "aborted";
}

export type RunEndPatch = RunPatch & {
  status: "finished" | "stopped";
  stopReason: StopReason;
  answer: string | null;
  error?: string;
};

/**
 * The run's last patch: `finished` for an answer (also one cut by the length limit), `stopped` for anything else — a
 * tool call cut by the length limit too (`length` with no answer).
 */
export function runEndPatch(input: {
  reason: StopReason;
  answer: string | null;
  error?: string | undefined;
  activeMs: number;
}): RunEndPatch {
  const answered = input.reason === "final-answer" || (input.reason === "length" && input.answer !== null);
  const status = answered ? "finished" : "stopped";
  const patch: RunEndPatch = {
    status,
    stopReason: input.reason,
    answer: input.answer,
    activeMs: input.activeMs,
    owner: null,
  };
  if (input.error !== undefined) patch.error = input.error;
  return patch;
}
