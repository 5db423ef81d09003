import { type ChildProcess, fork } from "node:child_process";
import { statSync } from "node:fs";
import type { MathEvaluation } from "./evaluate-math-expression.js";

export interface MathWorkerOptions {
  /** Hard bound on one evaluation, measured from when the worker receives it. Default 2000 ms. */
  timeoutMs?: number;
  /** Heap limit of the worker process; exceeding it ends the worker, not this process. Default 256 MiB. */
  maxMemoryMb?: number;
}

interface Job {
  id: number;
  expression: string;
  resolve: (result: MathEvaluation) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
}

type WorkerMessage = { ready: true } | ({ id: number } & MathEvaluation);

function formatMs(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/**
 * One long-lived worker process that evaluates calculator expressions, one at a time.
 *
 * mathjs runs synchronously, so a runaway evaluation (`ones(1e5, 1e5)`, a huge `range`) can only be stopped from
 * outside: when the time bound passes, the worker is killed and a fresh one is started for the next expression.
 *
 * A process rather than a worker thread: a thread's `resourceLimits` do not reliably contain an out-of-memory
 * error; a single huge array growing in a worker thread aborts the whole process (nodejs/node#47224, reproduced
 * here with `zeros(20000, 20000)`). A process with its own heap limit just exits. It also runs with code generation
 * from strings disabled, so even a sandbox escape inside mathjs could not reach `eval` or `Function`.
 * The worker does not keep this process alive while idle.
 */
export class MathWorker {
  readonly #timeoutMs: number;
  readonly #maxMemoryMb: number;
  #child: ChildProcess | undefined;
  #ready = false;
  #queue: Job[] = [];
  #current: Job | undefined;
  #timer: NodeJS.Timeout | undefined;
  #nextId = 1;
  #started = 0;
  #closed = false;
  /** Waiting for a worker process that can evaluate (see whenReady). */
  #readyWaiters: Array<() => void> = [];

  constructor(options: MathWorkerOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 2000;
    this.#maxMemoryMb = options.maxMemoryMb ?? 256;
  }

  /** How many worker processes have been started so far (one more after each timeout or crash). */
  get workersStarted(): number {
    return this.#started;
  }

  /** Process id of the running worker, if one is running. */
  get pid(): number | undefined {
    return this.#child?.pid;
  }

  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** Start the worker process now and wait until it can evaluate (the first start loads mathjs: about a second). */
  warmUp(): Promise<void> {
    return this.evaluate("0").then(() => undefined);
  }

  /** Whether a worker process is running and can evaluate at once (false while one starts, e.g. after a timeout). */
  get ready(): boolean {
    return this.#ready;
  }

  /**
   * Resolves once a worker process can evaluate — at once when one can, else when the one starting has loaded mathjs
   * (or has failed to start, or the worker was closed: nothing waits for ever).
   */
  whenReady(): Promise<void> {
    if (this.#ready || (!this.#child && this.#queue.length === 0 && !this.#current)) return Promise.resolve();
    return new Promise((resolve) => this.#readyWaiters.push(resolve));
  }

  #wakeReadyWaiters(): void {
    const waiters = this.#readyWaiters;
    this.#readyWaiters = [];
    for (const wake of waiters) wake();
  }

  /** Start the worker process without waiting for it (a pool starts its spares so a first call finds one ready). */
  start(): void {
    if (this.#child || this.#closed) return;
    this.#startChild();
    this.#updateRef();
  }

  /** Evaluate one expression. Resolves with an error evaluation on timeout or crash; rejects only when aborted. */
  evaluate(expression: string, signal?: AbortSignal): Promise<MathEvaluation> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      this.#closed = false;
      const job: Job = {
        id: this.#nextId++,
        expression,
        resolve,
        reject,
        signal,
        onAbort: () => this.#abort(job),
      };
      signal?.addEventListener("abort", job.onAbort, { once: true });
      this.#queue.push(job);
      this.#pump();
    });
  }

  /** Stop the worker; queued and running evaluations are rejected. A later evaluate() starts a new one. */
  close(): void {
    this.#closed = true;
    this.#wakeReadyWaiters();
    const pending = [...(this.#current ? [this.#current] : []), ...this.#queue];
    this.#queue = [];
    this.#finishCurrent();
    for (const job of pending)
      this.#settle(job, () => job.reject(new Error("The calculator was shut down.")));
    this.#killChild();
  }

  #pump(): void {
    if (this.#current || this.#queue.length === 0) {
      this.#updateRef();
      return;
    }
    const child = this.#child ?? this.#startChild();
    this.#updateRef();
    if (!this.#ready) return; // the "ready" message pumps again
    const job = this.#queue.shift() as Job;
    this.#current = job;
    this.#timer = setTimeout(() => this.#onTimeout(job), this.#timeoutMs);
    child.send({ id: job.id, expression: job.expression });
  }

  /** Busy: keep this process alive until the answer comes. Idle: let it exit even though the worker still runs. */
  #updateRef(): void {
    const child = this.#child;
    if (!child) return;
    const channel = child.channel as { ref(): void; unref(): void } | undefined;
    if (this.#current || this.#queue.length > 0) {
      child.ref();
      channel?.ref();
    } else {
      child.unref();
      channel?.unref();
    }
  }

  #startChild(): ChildProcess {
    const child = forkWorkerProcess(this.#maxMemoryMb);
    this.#started++;
    this.#child = child;
    this.#ready = false;
    child.on("message", (message: WorkerMessage) => {
      if (child !== this.#child) return;
      if ("ready" in message) {
        this.#ready = true;
        this.#wakeReadyWaiters();
        this.#pump();
        return;
      }
      const job = this.#current;
      if (!job || job.id !== message.id) return;
      this.#finishCurrent();
      const { id: _id, ...evaluation } = message;
      this.#settle(job, () => job.resolve(evaluation as MathEvaluation));
      this.#pump();
    });
    child.on("error", (error) => this.#onChildGone(child, error.message));
    child.on("exit", (code, signal) =>
      this.#onChildGone(child, signal ? `signal ${signal}` : `exit code ${code}`),
    );
    return child;
  }

  #onChildGone(child: ChildProcess, why: string): void {
    if (child !== this.#child) return;
    const wasReady = this.#ready;
    this.#child = undefined;
    this.#ready = false;
    const job = this.#current;
    if (job) {
      this.#finishCurrent();
      // A heap-limit abort exits with SIGABRT (or code 134); report it as what it almost always is.
      const outOfMemory = /SIGABRT|134/.test(why);
      const message = outOfMemory
        ? `The calculation needed more than ${this.#maxMemoryMb} MiB of memory and was stopped. Use smaller numbers, matrices or ranges.`
        : `The calculation crashed (${why}). Simplify the expression and try again.`;
      this.#settle(job, () => job.resolve({ ok: false, message }));
      this.#restart();
      return;
    }
    if (!wasReady) this.#wakeReadyWaiters();
    if (!wasReady && this.#queue.length > 0) {
      // The worker could not even start: fail what waits instead of restarting in a loop.
      const failed = this.#queue;
      this.#queue = [];
      const reason = new Error(`The calculator could not start its worker process (${why}).`);
      for (const queued of failed) this.#settle(queued, () => queued.reject(reason));
    }
  }

  #onTimeout(job: Job): void {
    if (this.#current !== job) return;
    this.#finishCurrent();
    this.#killChild();
    this.#settle(job, () =>
      job.resolve({
        ok: false,
        message: `The calculation took longer than ${formatMs(this.#timeoutMs)} and was stopped. Use smaller numbers, matrices or ranges.`,
      }),
    );
    this.#restart();
  }

  #abort(job: Job): void {
    const reason = job.signal?.reason;
    if (this.#current === job) {
      this.#finishCurrent();
      this.#killChild();
      this.#settle(job, () => job.reject(reason));
      this.#restart();
      return;
    }
    const index = this.#queue.indexOf(job);
    if (index >= 0) {
      this.#queue.splice(index, 1);
      this.#settle(job, () => job.reject(reason));
      this.#updateRef();
    }
  }

  /** Replace a killed worker right away, so the next expression does not wait for mathjs to load. */
  #restart(): void {
    if (this.#closed) return;
    if (!this.#child) this.#startChild();
    this.#pump();
  }

  #finishCurrent(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#current = undefined;
  }

  #settle(job: Job, settle: () => void): void {
    job.signal?.removeEventListener("abort", job.onAbort);
    settle();
  }

  #killChild(): void {
    const child = this.#child;
    this.#child = undefined;
    this.#ready = false;
    child?.kill("SIGKILL");
  }
}

/** The worker's own source files: a build of them that is newer than each can stand in for them. */
const WORKER_SOURCES = ["./calculator-worker.ts", "./evaluate-math-expression.ts", "./calculator-limits.ts"];

/**
 * The worker's entry and whether it needs tsx. From the build: its .js. From TypeScript source (vitest, tsx): the
 * built worker when it is newer than the worker's sources (a worker that starts without tsx loads mathjs in about
 * half the CPU time), else the .ts entry through tsx.
 */
function workerEntry(): { entry: URL; tsx: boolean } {
  if (!import.meta.url.endsWith(".ts"))
    return { entry: new URL("./calculator-worker.js", import.meta.url), tsx: false };
  const built = new URL("../../../dist/tools/builtin/calculator-worker.js", import.meta.url);
  try {
    const builtAt = statSync(built).mtimeMs;
    if (WORKER_SOURCES.every((source) => statSync(new URL(source, import.meta.url)).mtimeMs <= builtAt))
      return { entry: built, tsx: false };
  } catch {
    // no build: the source it is
  }
  return { entry: new URL("./calculator-worker.ts", import.meta.url), tsx: true };
}

function forkWorkerProcess(maxMemoryMb: number): ChildProcess {
  const { entry, tsx } = workerEntry();
  const execArgv = [`--max-old-space-size=${maxMemoryMb}`, "--disallow-code-generation-from-strings"];
  // Running its TypeScript source: the worker needs the same loader to read its .ts entry.
  if (tsx) execArgv.push("--import", "tsx");
  return fork(entry, [], {
    execArgv,
    // Its output is of no use here (a heap-limit abort prints V8 diagnostics); messages travel over IPC.
    stdio: ["ignore", "ignore", "ignore", "ipc"],
    serialization: "advanced",
  });
}
