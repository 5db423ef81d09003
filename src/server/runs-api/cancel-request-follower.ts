import type { RunStore } from "../../store/store.js";

export interface CancelRequestFollowerOptions {
  /** A store that keeps cancel requests (`listCancelRequests`); with leases, its notifications wake the follower. */
  store: Pick<RunStore, "listCancelRequests" | "leases">;
  /** The runs this process drives right now: the only ones whose requests it acts on. */
  driven: () => readonly string[];
  /** A cancel request was recorded for a run this process drives: stop it (told again while it goes on). */
  onRequest: (runId: string) => void;
  /** How often the store is read while this process drives runs. */
  pollMs: number;
  onError?: (error: unknown) => void;
}

/**
 * Hears the cancel requests (RunStore.requestCancel) of the runs this process drives, wherever they were made: on
 * another instance behind the same load balancer, another `serve` on the same SQLite file, or here. With PostgreSQL
 * a notification names the run at once; in every case the store is read every `pollMs` while runs are driven here
 * (one query for all of them), so a lost notification, or a store that sends none, only delays the stop.
 */
export class CancelRequestFollower {
  readonly #options: CancelRequestFollowerOptions;
  readonly #timer: ReturnType<typeof setInterval>;
  readonly #offNotify: (() => void) | undefined;
  #reading: Promise<void> | undefined;
  #closed = false;

  constructor(options: CancelRequestFollowerOptions) {
    this.#options = options;
    this.#offNotify = options.store.leases?.onCancelRequested((runId) => {
      if (options.driven().includes(runId)) options.onRequest(runId);
    });
    this.#timer = setInterval(() => void this.check(), options.pollMs);
    this.#timer.unref?.();
  }

  /** Read the requests of the runs driven here now (one read at a time) and act on those found. */
  check(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const driven = this.#options.driven();
    if (driven.length === 0 || !this.#options.store.listCancelRequests) return Promise.resolve();
    this.#reading ??= this.#options.store
      .listCancelRequests(driven)
      .then((requests) => {
        if (this.#closed) return;
        for (const runId of requests.keys()) this.#options.onRequest(runId);
      })
      .catch((error: unknown) => this.#options.onError?.(error))
      .finally(() => {
        this.#reading = undefined;
      });
    return this.#reading;
  }

  close(): void {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#offNotify?.();
  }
}
