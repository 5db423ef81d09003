import type { FeedResult } from "./stream-engine.js";

/**
 * One step of a region's state machine, read from a position: where to read on (the state may have changed), or
 * what the region's `feed` answers.
 */
export type Step = number | FeedResult;

/**
 * A region's `feed` as a loop over steps: `step` reads from a position with the method of the current state, and
 * reading goes on from where it left off until a step answers. One method per state keeps each state's rules apart.
 */
export function readSteps(from: number, step: (at: number) => Step): FeedResult {
  let at = from;
  for (;;) {
    const next = step(at);
    if (typeof next !== "number") return next;
    at = next;
  }
}
