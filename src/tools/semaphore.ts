/**
 * A counting semaphore: at most `limit` holders at once, and a waiter can give up through an AbortSignal.
 *
 * Holders may name a key (the user or client they act for). A freed place goes to the waiting key holding the fewest
 * places, the one granted longest ago among equals (round-robin; FIFO within a key, and FIFO overall when nobody
 * names a key), and one key holds at most `share` places at once, so
 * a caller that floods the semaphore leaves room for the next caller instead of making it wait behind the flood.
 */
export class Semaphore {
  #active = 0;
  #waiting = 0;
  readonly #waiters = new Map<string, Array<() => void>>();
  readonly #held = new Map<string, number>();
  /** When each key holding or awaiting a place was last granted one (a counter), for the round-robin. */
  readonly #lastGranted = new Map<string, number>();
  #grants = 0;

  constructor(
    readonly limit: number,
    /** Most places one key may hold at once. Default: all of them. */
    readonly share: number = limit,
  ) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`concurrency must be a positive integer, got ${limit}`);
    if (!Number.isInteger(share) || share < 1)
      throw new RangeError(`the per-caller share must be a positive integer, got ${share}`);
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#waiting;
  }

  /** Resolves with a release function; rejects with the signal's reason when aborted while waiting. */
  acquire(signal?: AbortSignal, key = ""): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#active < this.limit && (this.#held.get(key) ?? 0) < this.share) {
      return Promise.resolve(this.#take(key));
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve(this.#take(key));
      };
      const onAbort = () => {
        const queue = this.#waiters.get(key);
        const index = queue?.indexOf(grant) ?? -1;
        if (queue && index !== -1) {
          queue.splice(index, 1);
          if (queue.length === 0) this.#waiters.delete(key);
          this.#waiting -= 1;
        }
        reject(signal?.reason);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      const queue = this.#waiters.get(key);
      if (queue) queue.push(grant);
      else this.#waiters.set(key, [grant]);
      this.#waiting += 1;
    });
  }

  #take(key: string): () => void {
    this.#active += 1;
    this.#held.set(key, (this.#held.get(key) ?? 0) + 1);
    this.#lastGranted.set(key, this.#grants++);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#active -= 1;
      const left = (this.#held.get(key) ?? 1) - 1;
      if (left > 0) this.#held.set(key, left);
      else this.#held.delete(key);
      if (left <= 0 && !this.#waiters.has(key)) this.#lastGranted.delete(key);
      this.#grantNext();
    };
  }

  #grantNext(): void {
    while (this.#active < this.limit) {
      let best: string | undefined;
      let bestRank: [number, number] = [Number.POSITIVE_INFINITY, 0];
      for (const key of this.#waiters.keys()) {
        const held = this.#held.get(key) ?? 0;
        if (held >= this.share) continue;
        const granted = this.#lastGranted.get(key) ?? -1;
        if (held < bestRank[0] || (held === bestRank[0] && granted < bestRank[1])) {
          best = key;
          bestRank = [held, granted];
        }
      }
      if (best === undefined) return;
      const queue = this.#waiters.get(best) as Array<() => void>;
      const next = queue.shift() as () => void;
      if (queue.length === 0) this.#waiters.delete(best);
      this.#waiting -= 1;
      next();
    }
  }
}
