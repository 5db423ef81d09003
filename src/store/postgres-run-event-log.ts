import { randomUUID } from "node:crypto";
import type { PostgresConnection } from "./postgres-connection.js";
import type { PostgresLeases } from "./postgres-leases.js";
import type { PostgresNotifications } from "./postgres-notifications.js";
import type { LoggedEvent, RunEventLog, RunEventRecord } from "./run-event-log.js";
import { RunFencedError } from "./store.js";

interface Queued {
  /** Makes the append idempotent: a batch resent after a dropped connection is not written twice. */
  key: string;
  runId: string;
  type: string;
  at: number;
  data: string;
  /**
   * The epoch this process held on the run when the event was appended: the driver's events are written only while it
   * is still the run's. Undefined: written by anyone (a decision; a run nobody here holds).
   */
  epoch: number | undefined;
  resolve: (seq: number) => void;
  reject: (error: unknown) => void;
}

/** A `list` waiting for the next batch read. */
interface ReadRequest {
  runId: string;
  after: number;
  resolve: (records: RunEventRecord[]) => void;
  reject: (error: unknown) => void;
}

/** Events of these types are written by whoever records them (a decision on any instance), not by the run's driver. */
const UNFENCED_TYPES = new Set(["approval-decided"]);

/**
 * The RunEventLog on PostgreSQL (table `run_events`), for several instances: a run's events are numbered under a
 * per-run lock (after the run's last event), so whichever instance appends — the driver, or another where a decision
 * was made — the numbers have no gap and commit in order; the transaction then sends `NOTIFY <events channel>,
 * '{"run_id", "seq"}'` (never the event itself: notifications stop at 8,000 bytes), which every instance's `watch`
 * turns into a read of the log. The notification is only a hint; readers poll too.
 *
 * Group commit, as SqliteRunEventLog: everything appended while the previous batch commits goes in the next one (one
 * transaction in flight at a time, so a run's events keep their order). Runs are locked in id order, so two
 * instances' batches cannot deadlock. An event of a run whose lease this process lost is not written (RunFencedError):
 * a stale driver adds nothing to the log after a takeover. The epoch is checked under the run's append lock, not its
 * row lock (migration 3): a takeover takes the append lock too, while the run's own state transactions, which hold
 * the row, do not hold up its events. A batch that fails because the server went away is
 * retried (PostgresConnection.tx) until it comes back, so no event is lost to a restart.
 */
export class PostgresRunEventLog implements RunEventLog {
  readonly #db: PostgresConnection;
  /** A connection of its own for appends: they never wait for the pool that run transactions and reads share. */
  readonly #writer: PostgresConnection;
  /**
   * Connections of their own for `list`: a stream's next events are read while run transactions hold every connection
   * of the shared pool (bench/scale: each of its 10 connections held 40–100 ms per transaction at 2 × 25 runs, reads
   * queued behind them for up to 300 ms).
   */
  readonly #reader: PostgresConnection;
  readonly #readerConnections: number;
  #reads: ReadRequest[] = [];
  #readsInFlight = 0;
  readonly #leases: PostgresLeases;
  readonly #notifications: PostgresNotifications;
  readonly #sql: (text: string) => string;
  readonly #channel: string;
  readonly #watchers = new Map<string, Set<(seq?: number) => void>>();
  #queue: Queued[] = [];
  #committing: Promise<void> | undefined;
  #offNotify: (() => void) | undefined;
  #offReconnect: (() => void) | undefined;

  constructor(input: {
    connection: PostgresConnection;
    writer: PostgresConnection;
    /** For reads of the log; `readerConnections` (default 1) batches of them at once. */
    reader: PostgresConnection;
    readerConnections?: number;
    leases: PostgresLeases;
    notifications: PostgresNotifications;
    sql: (text: string) => string;
    channel: string;
  }) {
    this.#db = input.connection;
    this.#writer = input.writer;
    this.#reader = input.reader;
    this.#readerConnections = input.readerConnections ?? 1;
    this.#leases = input.leases;
    this.#notifications = input.notifications;
    this.#sql = input.sql;
    this.#channel = input.channel;
  }

  append(runId: string, event: LoggedEvent): Promise<number> {
    // Fenced as of now (a lease lost later still fences it), serialized now (the caller may reuse or change its
    // object once append returns), numbered when committed.
    const held = UNFENCED_TYPES.has(event.type) ? undefined : this.#leases.epochOf(runId);
    if (held === "lost") return Promise.reject(fencedError(runId));
    return new Promise<number>((resolve, reject) => {
      this.#queue.push({
        key: randomUUID(),
        runId,
        type: event.type,
        at: Date.now(),
        data: JSON.stringify(event),
        epoch: held,
        resolve,
        reject,
      });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#committing || this.#queue.length === 0) return;
    this.#committing = Promise.resolve()
      .then(() => this.#commitQueued())
      .finally(() => {
        this.#committing = undefined;
        this.#schedule();
      });
  }

  async #commitQueued(): Promise<void> {
    const writable = this.#queue;
    this.#queue = [];
    if (writable.length === 0) return;
    try {
      const seqs = await this.#write(writable);
      for (const row of writable) {
        const seq = seqs.get(row);
        if (seq === undefined) row.reject(fencedError(row.runId));
        else row.resolve(seq);
      }
    } catch (error) {
      for (const row of writable) row.reject(error);
    }
  }

  /**
   * One transaction, one statement (`append_run_events`, postgres-migrations.ts): take each run's append lock in id
   * order, check the fence of the driver's events, number after the run's last event, insert, notify.
   */
  async #write(rows: Queued[]): Promise<Map<Queued, number>> {
    // Its own transaction; retried when the connection drops (the keys make a second try harmless).
    const written = await this.#writer.query(
      this.#sql(
        "SELECT idx, seq FROM {S}.append_run_events($1, $2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::json[])",
      ),
      [
        this.#channel,
        rows.map((r) => r.key),
        rows.map((r) => r.runId),
        rows.map((r) => r.epoch ?? null),
        rows.map((r) => r.type),
        rows.map((r) => r.at),
        rows.map((r) => r.data),
      ],
    );
    const seqs = new Map<Queued, number>();
    for (const w of written) {
      const row = rows[Number(w.idx) - 1];
      if (row) seqs.set(row, Number(w.seq));
    }
    return seqs;
  }

  /**
   * Without a limit (what streams ask for: everything after the last event they have), reads are batched as appends
   * are: those asked for while `readerConnections` batches are in flight go in the next one, a single statement for
   * every run (one round trip however many streams woke at once). With a limit, read alone.
   */
  list(runId: string, after = 0, limit?: number): Promise<RunEventRecord[]> {
    if (limit !== undefined && limit >= 0)
      return this.#reader
        .query(
          this.#sql(
            "SELECT seq, data FROM {S}.run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
          ),
          [runId, after, limit],
        )
        .then((rows) =>
          rows.map((r) => ({ runId, seq: Number(r.seq), event: r.data as RunEventRecord["event"] })),
        );
    return new Promise((resolve, reject) => {
      this.#reads.push({ runId, after, resolve, reject });
      this.#scheduleReads();
    });
  }

  #scheduleReads(): void {
    while (this.#readsInFlight < this.#readerConnections && this.#reads.length > 0) {
      const batch = this.#reads;
      this.#reads = [];
      this.#readsInFlight += 1;
      void this.#readBatch(batch).finally(() => {
        this.#readsInFlight -= 1;
        this.#scheduleReads();
      });
    }
  }

  async #readBatch(batch: ReadRequest[]): Promise<void> {
    // Asked twice (two streams of one run at the same point): read once.
    const wanted = new Map<string, { runId: string; after: number; records: RunEventRecord[] }>();
    for (const r of batch) {
      const key = `${r.runId}\u0000${r.after}`;
      if (!wanted.has(key)) wanted.set(key, { runId: r.runId, after: r.after, records: [] });
    }
    const asked = [...wanted.values()];
    try {
      // One statement for every ask, a lone one included (one read path: its plan is the same index scan).
      const rows = await this.#reader.query(
        this.#sql(
          `SELECT w.i, e.seq, e.data
           FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS w(run_id, after, i)
           JOIN {S}.run_events e ON e.run_id = w.run_id AND e.seq > w.after
           ORDER BY w.i, e.seq`,
        ),
        [asked.map((a) => a.runId), asked.map((a) => a.after)],
      );
      for (const row of rows) {
        const a = asked[Number(row.i) - 1];
        a?.records.push({ runId: a.runId, seq: Number(row.seq), event: row.data as RunEventRecord["event"] });
      }
    } catch (error) {
      for (const r of batch) r.reject(error);
      return;
    }
    // Each caller gets events of its own, as from a read of its own: a second asker of the same records gets copies.
    const handedOut = new Set<string>();
    for (const r of batch) {
      const key = `${r.runId}\u0000${r.after}`;
      const records = wanted.get(key)?.records ?? [];
      r.resolve(handedOut.has(key) ? structuredClone(records) : records);
      handedOut.add(key);
    }
  }

  async lastSeq(runId: string): Promise<number> {
    const [row] = await this.#reader.query(
      this.#sql("SELECT COALESCE(MAX(seq), 0) AS seq FROM {S}.run_events WHERE run_id = $1"),
      [runId],
    );
    return Number(row?.seq ?? 0);
  }

  async deleteRuns(runIds: readonly string[]): Promise<void> {
    await this.flush();
    if (runIds.length === 0) return;
    await this.#db.tx((client) =>
      client.query(this.#sql("DELETE FROM {S}.run_events WHERE run_id = ANY($1::text[])"), [[...runIds]]),
    );
  }

  async flush(): Promise<void> {
    while (this.#committing) await this.#committing;
  }

  /**
   * Call `wake()` soon after any instance committed events of the run (a hint: it may come late, twice or not at all,
   * so the caller polls as well). Also called after the LISTEN connection came back, for what was missed meanwhile.
   */
  watch(runId: string, wake: (seq?: number) => void): () => void {
    if (!this.#offNotify) {
      this.#offNotify = this.#notifications.on(this.#channel, (payload) => {
        let note: { run_id?: unknown; seq?: unknown };
        try {
          note = JSON.parse(payload) as typeof note;
        } catch {
          return;
        }
        const watchers = typeof note.run_id === "string" ? this.#watchers.get(note.run_id) : undefined;
        const seq = typeof note.seq === "number" ? note.seq : undefined;
        if (watchers) for (const w of [...watchers]) w(seq);
      });
      this.#offReconnect = this.#notifications.onReconnect(() => {
        for (const watchers of this.#watchers.values()) for (const w of [...watchers]) w();
      });
    }
    let watchers = this.#watchers.get(runId);
    if (!watchers) this.#watchers.set(runId, (watchers = new Set()));
    watchers.add(wake);
    return () => {
      watchers.delete(wake);
      if (watchers.size === 0 && this.#watchers.get(runId) === watchers) this.#watchers.delete(runId);
    };
  }

  /** Stop watching (the database is closing). */
  stopWatching(): void {
    this.#offNotify?.();
    this.#offReconnect?.();
    this.#watchers.clear();
  }
}

function fencedError(runId: string): RunFencedError {
  return new RunFencedError(
    `Run ${runId} was taken over by another instance; its events from this one are not logged any more.`,
  );
}
