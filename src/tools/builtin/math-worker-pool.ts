import os from "node:os";
import type { MathEvaluation } from "./evaluate-math-expression.js";
import { MathWorker, type MathWorkerOptions } from "./math-worker.js";

export interface MathWorkerPoolOptions extends MathWorkerOptions {
  /** Worker processes. Default: half the available cores, at least 2, at most 8. */
  size?: number;
  /** Use these workers instead of starting new ones (tests; sharing one worker between tools). */
  workers?: readonly MathWorker[];
  /** Evaluations allowed to wait, all callers together; more are answered "busy" at once. Default 64. */
  maxQueued?: number;
  /** Evaluations one caller may have waiting. Default 16. */
  maxQueuedPerCaller?: number;
  /** Longest wait in the queue before the evaluation is answered "busy" without running. Default 10 s. */
  maxQueueWaitMs?: number;
}

/** An evaluation plus how long it waited for a worker (reported apart from the per-evaluation time limit). */
export type PoolEvaluation = MathEvaluation & { queuedMs: number; busy?: true };

export interface PoolEvaluateOptions {
  /**
   * Who asked: evaluations are shared round-robin between callers, so one caller's flood cannot starve another.
   * The calculator passes the tool call's `userId` (the agent's user, or the MCP caller's identity when the MCP
   * server sets it); calls without one share the key "anonymous".
   */
  caller?: string;
  signal?: AbortSignal;
  /**
   * Longest wait in the queue for this evaluation, when part of the pool's `maxQueueWaitMs` was already spent
   * waiting elsewhere (the executor's queue); capped at the pool's own limit.
   */
  maxWaitMs?: number;
}

interface Job {
  caller: string;
  expression: string;
  signal: AbortSignal | undefined;
  queuedAt: number;
  resolve: (result: PoolEvaluation) => void;
  reject: (reason: unknown) => void;
  onAbort: () => void;
  timer: NodeJS.Timeout | undefined;
}

function defaultSize(): number {
  const cores = typeof os.availableParallelism === "function" ? os.availableParallelism() : os.cpus().length;
  return Math.min(8, Math.max(2, Math.floor(cores / 2)));
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)} s`;
}

/**
 * A small pool of calculator workers shared fairly between callers.
 *
 * Fairness: waiting evaluations sit in one queue per caller, and a free worker takes the next evaluation from the
 * caller with the fewest evaluations running, the one served longest ago among equals (round-robin), not first come
 * first served. A caller may also occupy at most `size - 1` workers at
 * once, so one worker is always left for somebody else: a flood of heavy expressions from one caller delays another
 * caller's `2+2` by at most one scheduling step, not by the whole flood. Time limits: each evaluation keeps its own
 * bound (MathWorker's, from when a worker receives it); the time spent waiting is bounded apart (`maxQueueWaitMs`)
 * and reported as `queuedMs`. A full queue answers "busy" immediately instead of growing.
 */
export class MathWorkerPool {
  readonly #workers: MathWorker[];
  readonly #idle: MathWorker[];
  readonly #queues = new Map<string, Job[]>();
  readonly #running = new Map<string, number>();
  /** When each caller with work here was last served (a counter), for the round-robin. */
  readonly #lastServed = new Map<string, number>();
  #serveCount = 0;
  readonly #maxQueued: number;
  readonly #maxQueuedPerCaller: number;
  readonly #maxQueueWaitMs: number;
  #queued = 0;

  constructor(options: MathWorkerPoolOptions = {}) {
    const size = options.workers?.length ?? options.size ?? defaultSize();
    if (!Number.isInteger(size) || size < 1)
      throw new RangeError(`A calculator pool needs at least one worker, got ${size}.`);
    this.#workers = options.workers
      ? [...options.workers]
      : Array.from({ length: size }, () => new MathWorker(options));
    this.#idle = [...this.#workers];
    this.#maxQueued = options.maxQueued ?? 64;
    this.#maxQueuedPerCaller = options.maxQueuedPerCaller ?? 16;
    this.#maxQueueWaitMs = options.maxQueueWaitMs ?? 10_000;
  }

  get size(): number {
    return this.#workers.length;
  }

  /** The per-evaluation bound of the workers. */
  get timeoutMs(): number {
    return this.#workers[0]?.timeoutMs ?? 2000;
  }

  get maxQueueWaitMs(): number {
    return this.#maxQueueWaitMs;
  }

  /** Evaluations waiting for a worker right now. */
  get queued(): number {
    return this.#queued;
  }

  /** Start every worker and wait until all can evaluate. */
  async warmUp(): Promise<void> {
    await Promise.all(this.#workers.map((worker) => worker.warmUp()));
  }

  /** Stop every worker; waiting evaluations are rejected. */
  close(): void {
    for (const jobs of this.#queues.values()) {
      for (const job of jobs) this.#settle(job, () => job.reject(new Error("The calculator was shut down.")));
    }
    this.#queues.clear();
    this.#queued = 0;
    for (const worker of this.#workers) worker.close();
  }

  /** Evaluate one expression on the caller's turn. Rejects only when aborted (or the pool is closed). */
  evaluate(expression: string, options: PoolEvaluateOptions = {}): Promise<PoolEvaluation> {
    const caller = options.caller ?? "anonymous";
    const { signal } = options;
    const maxWaitMs = Math.max(0, Math.min(this.#maxQueueWaitMs, options.maxWaitMs ?? this.#maxQueueWaitMs));
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const mine = this.#queues.get(caller);
      if (this.#queued >= this.#maxQueued || (mine?.length ?? 0) >= this.#maxQueuedPerCaller) {
        const yours = (mine?.length ?? 0) >= this.#maxQueuedPerCaller;
        const waiting = yours
          ? `${mine?.length} of your calculations are`
          : `${this.#queued} calculations are`;
        resolve({
          ok: false,
          busy: true,
          queuedMs: 0,
          message: `The calculator is busy: ${waiting} already waiting. Try again in a moment, or send fewer calculations at once.`,
        });
        return;
      }
      const job: Job = {
        caller,
        expression,
        signal,
        queuedAt: performance.now(),
        resolve,
        reject,
        onAbort: () => {
          if (this.#dequeue(job)) this.#settle(job, () => job.reject(signal?.reason));
        },
        timer: undefined,
      };
      job.timer = setTimeout(() => {
        if (!this.#dequeue(job)) return;
        this.#settle(job, () =>
          job.resolve({
            ok: false,
            busy: true,
            queuedMs: Math.round(performance.now() - job.queuedAt),
            message: `The calculator is busy: this calculation waited ${seconds(this.#maxQueueWaitMs)} for a free worker and was not run. Try again in a moment.`,
          }),
        );
      }, maxWaitMs);
      job.timer.unref?.();
      signal?.addEventListener("abort", job.onAbort, { once: true });
      if (mine) mine.push(job);
      else this.#queues.set(caller, [job]);
      this.#queued += 1;
      // Spares start in the background on first use, so the next caller does not wait for mathjs to load.
      for (const worker of this.#workers) worker.start();
      this.#dispatch();
    });
  }

  /** Hand waiting evaluations to idle workers, callers in turn, each caller below its share of the workers. */
  #dispatch(): void {
    const cap = Math.max(1, this.#workers.length - 1);
    while (this.#idle.length > 0 && this.#queued > 0) {
      // The caller with the fewest evaluations running goes next; among equals, the one served longest ago.
      let best: string | undefined;
      let bestRank: [number, number] = [Number.POSITIVE_INFINITY, 0];
      for (const caller of this.#queues.keys()) {
        const running = this.#running.get(caller) ?? 0;
        if (running >= cap) continue;
        const served = this.#lastServed.get(caller) ?? -1;
        if (running < bestRank[0] || (running === bestRank[0] && served < bestRank[1])) {
          best = caller;
          bestRank = [running, served];
        }
      }
      if (best === undefined) return; // everyone waiting is at their share
      const jobs = this.#queues.get(best) as Job[];
      const picked = jobs.shift() as Job;
      if (jobs.length === 0) this.#queues.delete(best);
      this.#lastServed.set(best, this.#serveCount++);
      this.#queued -= 1;
      this.#run(picked, this.#idle.shift() as MathWorker);
    }
  }

  #run(job: Job, worker: MathWorker): void {
    clearTimeout(job.timer);
    job.signal?.removeEventListener("abort", job.onAbort);
    const queuedMs = Math.round(performance.now() - job.queuedAt);
    this.#running.set(job.caller, (this.#running.get(job.caller) ?? 0) + 1);
    const release = () => {
      const left = (this.#running.get(job.caller) ?? 1) - 1;
      if (left > 0) this.#running.set(job.caller, left);
      else this.#running.delete(job.caller);
      if (left <= 0 && !this.#queues.has(job.caller)) this.#lastServed.delete(job.caller); // forget idle callers
      this.#idle.push(worker);
      this.#dispatch();
    };
    // An evaluation that overran its bound killed its worker: the replacement loading mathjs (a second, several on a
    // busy machine) is still that caller's use of the worker. Released at once, the worker would be handed on while
    // starting — the next caller's `2+2` waiting for the restart the flood caused, and the flood holding two workers.
    const done = () => {
      if (worker.ready) release();
      else void worker.whenReady().then(release);
    };
    worker.evaluate(job.expression, job.signal).then(
      (evaluation) => {
        done();
        job.resolve({ ...evaluation, queuedMs });
      },
      (error: unknown) => {
        done();
        job.reject(error);
      },
    );
  }

  /** Take a waiting job out of its caller's queue; false when it already left (running or settled). */
  #dequeue(job: Job): boolean {
    const jobs = this.#queues.get(job.caller);
    const index = jobs?.indexOf(job) ?? -1;
    if (!jobs || index < 0) return false;
    jobs.splice(index, 1);
    if (jobs.length === 0) this.#queues.delete(job.caller);
    this.#queued -= 1;
    return true;
  }

  #settle(job: Job, settle: () => void): void {
    clearTimeout(job.timer);
    job.signal?.removeEventListener("abort", job.onAbort);
    settle();
  }
}
