import type { PostgresConnection, Queryable } from "./postgres-connection.js";
import type { PostgresLeases } from "./postgres-leases.js";
import type { PostgresNotifications } from "./postgres-notifications.js";
import type { LoggedEvent, RunEventLog, RunEventRecord } from "./run-event-log.js";
import { RunFencedError } from "./store.js";

interface Queued {
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
    leases: PostgresLeases;
    notifications: PostgresNotifications;
    sql: (text: string) => string;
    channel: string;
  }) {
    this.#db = input.connection;
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
      const seqs = await this.#db.tx((client) => this.#write(client, writable));
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
   * One transaction: take each run's append lock in id order, check the fence of the driver's events, number after
   * the run's last event, insert, notify.
   */
  async #write(client: Queryable, rows: Queued[]): Promise<Map<Queued, number>> {
    const byRun = new Map<string, Queued[]>();
    for (const row of rows) {
      let list = byRun.get(row.runId);
      if (!list) byRun.set(row.runId, (list = []));
      list.push(row);
    }
    const ids = [...byRun.keys()].sort();
    // Appends to one run take turns on every instance (a transaction-scoped advisory lock: nothing to clean up, and
    // usable through a transaction-pooling proxy). Taken in id order, so two batches cannot deadlock.
    await client.query(
      "SELECT pg_advisory_xact_lock(k) FROM (SELECT hashtext($1 || id) AS k FROM unnest($2::text[]) AS id ORDER BY id) s",
      [this.#channel, ids],
    );
    // The driver's events: the run's epoch must still be the one this process held. FOR SHARE keeps a takeover
    // (an UPDATE of the row) waiting until this commits, so no event of the old owner lands after it.
    const fencedIds = ids.filter((id) => (byRun.get(id) ?? []).some((row) => row.epoch !== undefined));
    const current = new Map<string, number>();
    if (fencedIds.length > 0) {
      const { rows: locked } = await client.query(
        this.#sql("SELECT id, epoch FROM {S}.runs WHERE id = ANY($1::text[]) ORDER BY id FOR SHARE"),
        [fencedIds],
      );
      for (const r of locked) current.set(String(r.id), Number(r.epoch));
    }
    const { rows: lasts } = await client.query(
      this.#sql(
        "SELECT run_id, MAX(seq) AS seq FROM {S}.run_events WHERE run_id = ANY($1::text[]) GROUP BY run_id",
      ),
      [ids],
    );
    const last = new Map(lasts.map((r) => [String(r.run_id), Number(r.seq)]));
    const seqs = new Map<Queued, number>();
    const runIds: string[] = [];
    const seqColumn: number[] = [];
    const types: string[] = [];
    const ats: number[] = [];
    const datas: string[] = [];
    const notes: string[] = [];
    for (const id of ids) {
      let seq = last.get(id) ?? 0;
      for (const row of byRun.get(id) ?? []) {
        if (row.epoch !== undefined && current.get(id) !== row.epoch) continue;
        seq += 1;
        seqs.set(row, seq);
        runIds.push(id);
        seqColumn.push(seq);
        types.push(row.type);
        ats.push(row.at);
        datas.push(row.data);
      }
      if (seq !== (last.get(id) ?? 0)) notes.push(JSON.stringify({ run_id: id, seq }));
    }
    if (runIds.length === 0) return seqs;
    await client.query(
      this.#sql(
        `INSERT INTO {S}.run_events (run_id, seq, type, at, data)
         SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[], $5::json[])`,
      ),
      [runIds, seqColumn, types, ats, datas],
    );
    await client.query("SELECT pg_notify($1, note) FROM unnest($2::text[]) AS note", [this.#channel, notes]);
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
