import type Database from "better-sqlite3";
import { keepNativeAlive } from "./keep-native-alive.js";
import type { LoggedEvent, RunEventLog, RunEventRecord } from "./run-event-log.js";

interface Queued {
  runId: string;
  seq: number;
  type: string;
  at: number;
  data: string;
}

/** `PRAGMA synchronous` values: 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA. */
const NORMAL = 1;

export interface SqliteRunEventLogOptions {
  /**
   * Commit the log's own transactions with the connection's `synchronous` setting (FULL by default: an fsync per
   * commit). Default false: they commit with NORMAL and without checkpointing — durable when the process crashes,
   * and made durable against a power loss by the run's next state transaction, whose fsync covers the WAL before it.
   */
  syncEachCommit?: boolean;
}

/**
 * The RunEventLog in the store's SQLite database (table `run_events`, migration 3), sharing its connection the way
 * McpApprovalLedger does. Sequence numbers are taken from the table as the events are committed (so they continue
 * after a restart and across processes on one database). Group commit: the events appended before the next microtask checkpoint —
 * all the deltas one model chunk produces, the events of every run that ran in the meantime — go in one transaction.
 *
 * Why not wait for a later turn of the event loop to batch more: with many runs a turn of the loop is long (their
 * own store commits fsync), and an event waiting for it waited 30–300 ms (bench/server-runs.ts); a commit without
 * fsync costs tens of microseconds, so committing at once is both prompt and cheap.
 */
export class SqliteRunEventLog implements RunEventLog {
  readonly #db: Database.Database;
  readonly #insert: Database.Statement;
  readonly #list: Database.Statement;
  readonly #last: Database.Statement;
  readonly #delete: Database.Statement;
  readonly #commitAll: Database.Transaction<(rows: Queued[]) => void>;
  /** What the log's commits set, and what restores the connection's own settings after each. */
  readonly #relax: string | undefined;
  readonly #restore: string | undefined;
  #queue: Queued[] = [];
  #batch: Promise<void> | undefined;

  constructor(db: Database.Database, options: SqliteRunEventLogOptions = {}) {
    this.#db = db;
    // Prepared once and kept (keep-native-alive.ts).
    const prepare = (sql: string) => keepNativeAlive(db.prepare(sql));
    const sync = Number(prepare("PRAGMA synchronous").pluck().get());
    const checkpoint = Number(prepare("PRAGMA wal_autocheckpoint").pluck().get());
    if (!options.syncEachCommit && sync > NORMAL) {
      // No checkpoint in the log's commits either: one copies the WAL into the database and fsyncs (300 ms seen with
      // 500 runs), and every event waiting for that commit would wait with it. The store's own commits checkpoint.
      this.#relax = `PRAGMA synchronous = ${NORMAL}; PRAGMA wal_autocheckpoint = 0`;
      this.#restore = `PRAGMA synchronous = ${sync}; PRAGMA wal_autocheckpoint = ${checkpoint}`;
    }
    this.#insert = prepare("INSERT INTO run_events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)");
    this.#list = prepare(
      "SELECT seq, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?",
    );
    this.#last = prepare("SELECT COALESCE(MAX(seq), 0) AS seq FROM run_events WHERE run_id = ?");
    this.#delete = prepare("DELETE FROM run_events WHERE run_id = ?");
    // Numbers are taken inside the (IMMEDIATE) transaction from the table itself, so that several processes on one
    // database number one run's events without a gap or a clash (a decision in one, the resumed run in another).
    this.#commitAll = db.transaction((rows: Queued[]) => {
      const next = new Map<string, number>();
      for (const r of rows) {
        const seq = (next.get(r.runId) ?? (this.#last.get(r.runId) as { seq: number }).seq) + 1;
        next.set(r.runId, seq);
        r.seq = seq;
        this.#insert.run(r.runId, seq, r.type, r.at, r.data);
      }
    });
  }

  append(runId: string, event: LoggedEvent): Promise<number> {
    // Serialized now: the caller may reuse or change its object once append returns. Numbered when committed.
    const row: Queued = { runId, seq: 0, type: event.type, at: Date.now(), data: JSON.stringify(event) };
    this.#queue.push(row);
    this.#batch ??= Promise.resolve().then(() => this.#commit());
    return this.#batch.then(() => row.seq);
  }

  #commit(): void {
    this.#batch = undefined;
    const rows = this.#queue;
    this.#queue = [];
    // exec, not pragma(): see keep-native-alive.ts.
    if (this.#relax) this.#db.exec(this.#relax);
    try {
      this.#commitAll.immediate(rows);
    } finally {
      if (this.#restore) this.#db.exec(this.#restore);
    }
  }

  async list(runId: string, after = 0, limit = -1): Promise<RunEventRecord[]> {
    const rows = this.#list.all(runId, after, limit) as Array<{ seq: number; data: string }>;
    return rows.map((r) => ({ runId, seq: r.seq, event: JSON.parse(r.data) as RunEventRecord["event"] }));
  }

  async lastSeq(runId: string): Promise<number> {
    return (this.#last.get(runId) as { seq: number }).seq;
  }

  async deleteRuns(runIds: readonly string[]): Promise<void> {
    await this.flush();
    for (const id of runIds) this.#delete.run(id);
  }

  async flush(): Promise<void> {
    await this.#batch;
  }
}
