import type { RateLimit } from "./tool-definition.js";

export type LimitDecision =
  | { allowed: true }
  | { allowed: false; retryAfterMs: number; reason: "cooldown" | "rate-limit" };

/**
 * Cooldowns and rate limits per (user, tool). Calls are counted when they are accepted, whatever their outcome: a
 * failing call still cost whatever the limit protects.
 */
export class CallLimiter {
  readonly #history = new Map<string, number[]>();

  constructor(private readonly now: () => number = Date.now) {}

  check(
    userId: string,
    toolName: string,
    limits: { cooldownMs?: number; rateLimit?: RateLimit },
  ): LimitDecision {
    const key = `${userId}\u0000${toolName}`;
    const now = this.now();
    const keepFor = Math.max(limits.cooldownMs ?? 0, limits.rateLimit?.windowMs ?? 0);
    const history = (this.#history.get(key) ?? []).filter((t) => now - t < keepFor);
    const last = history.at(-1);
    if (limits.cooldownMs !== undefined && last !== undefined && now - last < limits.cooldownMs) {
      return { allowed: false, reason: "cooldown", retryAfterMs: limits.cooldownMs - (now - last) };
    }
    if (limits.rateLimit) {
      const inWindow = history.filter((t) => now - t < limits.rateLimit!.windowMs);
      if (inWindow.length >= limits.rateLimit.maxCalls) {
        return {
          allowed: false,
          reason: "rate-limit",
          retryAfterMs: limits.rateLimit.windowMs - (now - inWindow[0]!),
        };
      }
    }
    if (keepFor > 0) {
      history.push(now);
      this.#history.set(key, history);
    }
    return { allowed: true };
  }
}
