import type { PendingApproval } from "../runs-api/pending-approvals.js";

export interface PendingApprovalsFeedOptions {
  /** Every pending call, read from the store (so runs of other processes on the same database are included). */
  read: () => Promise<PendingApproval[]>;
  /** How often the store is read while anyone listens. Default 500 ms. */
  intervalMs?: number;
  /** Told of runs that had pending calls and have none now (decided here, by another process, or cancelled). */
  onSettled?: (runIds: string[]) => void;
  onError?: (error: unknown) => void;
}

type Listener = (calls: PendingApproval[]) => void;

/**
 * The pending calls of every run, pushed to every signed-in WebSocket client: the whole list when a client connects,
 * and again whenever it changes — a run of this server pausing, a `toolbridge run` on the same database pausing, a
 * decision made anywhere (another tab, `runs approve`), a run cancelled. Nothing is kept but the last list read: the
 * store decides, and the store is read again every `intervalMs` while anyone listens (other processes write to it
 * without telling this one).
 */
export class PendingApprovalsFeed {
  readonly #options: PendingApprovalsFeedOptions;
  readonly #listeners = new Set<Listener>();
  #current: PendingApproval[] = [];
  #signature = "[]";
  #timer: ReturnType<typeof setInterval> | undefined;
  #reading: Promise<void> | undefined;
  #closed = false;

  constructor(options: PendingApprovalsFeedOptions) {
    this.#options = options;
  }

  /** Start hearing the list: the current one at once (read fresh), then every change. Returns the unsubscribe. */
  listen(listener: Listener): () => void {
    if (this.#closed) return () => {};
    this.#listeners.add(listener);
    void this.#read().then(() => {
      if (this.#listeners.has(listener)) listener(this.#current);
    });
    if (!this.#timer) {
      this.#timer = setInterval(() => void this.#read(), this.#options.intervalMs ?? 500);
      this.#timer.unref?.();
    }
    return () => {
      this.#listeners.delete(listener);
      if (this.#listeners.size === 0 && this.#timer) {
        clearInterval(this.#timer);
        this.#timer = undefined;
      }
    };
  }

  /** Read the store now (one read at a time) and tell every listener if the list changed. */
  refresh(): Promise<void> {
    return this.#read();
  }

  close(): void {
    this.#closed = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#listeners.clear();
  }

  #read(): Promise<void> {
    this.#reading ??= this.#options
      .read()
      .then((calls) => {
        const signature = JSON.stringify(calls);
        if (signature === this.#signature) return;
        const before = new Set(this.#current.map((call) => call.runId));
        const after = new Set(calls.map((call) => call.runId));
        this.#current = calls;
        this.#signature = signature;
        for (const listener of [...this.#listeners]) listener(calls);
        const settled = [...before].filter((runId) => !after.has(runId));
        if (settled.length > 0) this.#options.onSettled?.(settled);
      })
      .catch((error: unknown) => this.#options.onError?.(error))
      .finally(() => {
        this.#reading = undefined;
      });
    return this.#reading;
  }
}
