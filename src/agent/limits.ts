/** When a run must end even if the model never gives a final answer. All of them always apply. */
export interface RunLimits {
  /** Model turns. */
  maxSteps: number;
  /** Tool executions over the whole run; a call over the limit is refused and the run stops. */
  maxToolCalls: number;
  /** One step: the model turn plus its tool calls. */
  stepTimeoutMs: number;
  /** The whole run, not counting time paused for approval. */
  totalTimeoutMs: number;
  /** Steps in a row in which every call failed (invalid, error, timeout). */
  maxConsecutiveFailures: number;
  /** Steps with invalid calls (unknown tool, unreadable or invalid arguments) the model may repair. */
  maxRepairs: number;
}

export const DEFAULT_LIMITS: Readonly<RunLimits> = Object.freeze({
  maxSteps: 10,
  maxToolCalls: 50,
  stepTimeoutMs: 120_000,
  totalTimeoutMs: 600_000,
  maxConsecutiveFailures: 3,
  maxRepairs: 3,
});

export function resolveLimits(...overrides: Array<Partial<RunLimits> | undefined>): RunLimits {
  const limits: RunLimits = { ...DEFAULT_LIMITS };
  for (const override of overrides) {
    if (!override) continue;
    for (const [key, value] of Object.entries(override) as Array<[keyof RunLimits, number | undefined]>) {
      if (value === undefined) continue;
      if (!Number.isFinite(value) || value < (key === "maxRepairs" || key === "maxToolCalls" ? 0 : 1)) {
        throw new RangeError(`Limit ${key} must be a positive number, got ${value}.`);
      }
      limits[key] = value;
    }
  }
  return limits;
}
