/**
 * One event of a run as the log keeps it: its per-run sequence number (1, 2, 3 … with no gap, continuing across
 * restarts) and the event itself, exactly as the agent emitted it (already redacted there). The store room does not
 * know the agent's event union, so the event is kept as a plain object with a `type`.
 */
export interface RunEventRecord {
  runId: string;
  seq: number;
  event: { type: string } & Record<string, unknown>;
}

/** What may be logged: any plain, JSON-serializable object with a `type`. */
export type LoggedEvent = { readonly type: string } & Readonly<Record<string, unknown>>;

/**
 * The append-only log of every run's events, so that a client that lost its connection gets exactly what it missed.
 * `append` numbers the event at once and resolves once it is committed; appends are batched (everything appended
 * before the next microtask checkpoint commits in one transaction: the deltas of a model chunk, the events of all runs
 * that ran meanwhile). Implementations: SqliteRunEventLog (table `run_events`, shares the store's connection),
 * PostgresRunEventLog (several instances append to one run's log), InMemoryRunEventLog; all pass run-event-log.test.ts.
 */
export interface RunEventLog {
  /** Number the event (last seq + 1 for its run) and commit it with the others of this tick; resolves to its seq. */
  append(runId: string, event: LoggedEvent): Promise<number>;
  /** Committed events of a run with seq > `after`, in order; at most `limit` (default: all). */
  list(runId: string, after?: number, limit?: number): Promise<RunEventRecord[]>;
  /** The seq of the run's last committed event; 0 when it has none. */
  lastSeq(runId: string): Promise<number>;
  /** Forget every event of these runs (their conversation was deleted). */
  deleteRuns(runIds: readonly string[]): Promise<void>;
  /** Commit whatever is queued; resolves when done. */
  flush(): Promise<void>;
  /**
   * Logs that several processes append to (PostgreSQL) tell of another process's events: `wake(seq)` is called soon
   * after any process committed events of the run, with the last seq committed (undefined: unknown, look). A hint only
   * (it may come late, twice or never): readers poll as well. Returns the function that stops it. Absent: only
   * polling sees other processes' events.
   */
  watch?(runId: string, wake: (seq?: number) => void): () => void;
}
