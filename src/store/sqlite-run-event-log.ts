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

/**
 * The RunEventLog in the store's SQLite database (table `run_events`, migration 3), sharing its connection the way
 * McpApprovalLedger does. Sequence numbers are handed out in memory (seeded from the table the first time a run is
 * seen, so they continue after a restart) and the queued events of one tick are inserted in one transaction: with
 * `synchronous=FULL` a commit is an fsync, and a model streaming text emits many deltas per tick.
 */
export class SqliteRunEventLog implements RunEventLog {
  readonly #insert: Database.Statement;
  readonly #list: Database.Statement;
  readonly #last: Database.Statement;
  readonly #delete: Database.Statement;
  readonly #commitAll: Database.Transaction<(rows: readonly Queued[]) => void>;
  readonly #next = new Map<string, number>();
  #queue: Queued[] = [];
  #batch: Promise<void> | undefined;

  constructor(db: Database.Database) {
    // Prepared once and kept (keep-native-alive.ts).
    this.#insert = keepNativeAlive(
      db.prepare("INSERT INTO run_events (run_id, seq, type, at, data) VALUES (?, ?, ?, ?, ?)"),
    );
    this.#list = keepNativeAlive(
      db.prepare("SELECT seq, data FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?"),
    );
    this.#last = keepNativeAlive(
      db.prepare("SELECT COALESCE(MAX(seq), 0) AS seq FROM run_events WHERE run_id = ?"),
    );
    this.#delete = keepNativeAlive(db.prepare("DELETE FROM run_events WHERE run_id = ?"));
    this.#commitAll = db.transaction((rows: readonly Queued[]) => {
      for (const r of rows) this.#insert.run(r.runId, r.seq, r.type, r.at, r.data);
    });
  }

  append(runId: string, event: LoggedEvent): Promise<number> {
    let seq = this.#next.get(runId);
    if (seq === undefined) seq = (this.#last.get(runId) as { seq: number }).seq;
    seq += 1;
    this.#next.set(runId, seq);
    // Serialized now: the caller may reuse or change its object once append returns.
    this.#queue.push({ runId, seq, type: event.type, at: Date.now(), data: JSON.stringify(event) });
    this.#batch ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.#commit());
    return this.#batch.then(() => seq);
  }

  #commit(): void {
    this.#batch = undefined;
    const rows = this.#queue;
    this.#queue = [];
    try {
      this.#commitAll.immediate(rows);
    } catch (error) {
      // Nothing of the batch was written: its numbers are free again, re-read from the table on the next append.
      for (const r of rows) this.#next.delete(r.runId);
      throw error;
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
    for (const id of runIds) {
      this.#delete.run(id);
      this.#next.delete(id);
    }
  }

  async flush(): Promise<void> {
    await this.#batch;
  }
}
