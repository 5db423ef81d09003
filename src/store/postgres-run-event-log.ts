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
 * a stale driver adds nothing to the log after a takeover. A batch that fails because the server went away is
 * retried (PostgresConnection.tx) until it comes back, so no event is lost to a restart.
 */
export class PostgresRunEventLog implements RunEventLog {
  readonly #db: PostgresConnection;
  /** A connection of its own for appends: they never wait for the pool that run transactions and reads share. */
  readonly #writer: PostgresConnection;
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
    leases: PostgresLeases;
    notifications: PostgresNotifications;
    sql: (text: string) => string;
    channel: string;
  }) {
    this.#db = input.connection;
    this.#writer = input.writer;
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

  async list(runId: string, after = 0, limit?: number): Promise<RunEventRecord[]> {
    const rows =
      limit === undefined || limit < 0
        ? await this.#db.query(
            this.#sql("SELECT seq, data FROM {S}.run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq"),
            [runId, after],
          )
        : await this.#db.query(
            this.#sql(
              "SELECT seq, data FROM {S}.run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
            ),
            [runId, after, limit],
          );
    return rows.map((r) => ({ runId, seq: Number(r.seq), event: r.data as RunEventRecord["event"] }));
  }

  async lastSeq(runId: string): Promise<number> {
    const [row] = await this.#db.query(
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
