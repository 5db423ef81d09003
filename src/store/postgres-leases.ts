import type { PostgresConnection, Queryable } from "./postgres-connection.js";
import type { PostgresNotifications } from "./postgres-notifications.js";
import { type Row, runFromRow } from "./sql-rows.js";
import { RunFencedError, type RunLeases, type RunRecord } from "./store.js";

/**
 * The leases this process holds on runs, and the fencing every state write goes through (RunLeases in store.ts).
 *
 * - `hold(runId, epoch)` after a claim (createRun, claimRun, claimNext); `release` when a write sets the owner to null.
 * - `fence(client, runId)` starts each state transaction of a run: `UPDATE runs … WHERE id AND epoch` takes the run's
 *   row lock and checks the fencing token in one statement. A claim by another instance increments the epoch under the
 *   same row lock, so a write either commits before the takeover or matches 0 rows and throws RunFencedError.
 *   Events are fenced apart from that (PostgresRunEventLog): under the run's append lock, which a change of epoch
 *   takes too (migration 3's trigger), so that a state transaction holding the row does not hold up the run's events.
 * - The heartbeat renews every held lease every `leaseMs / 3`; a lease whose epoch moved on is lost: `onLost`
 *   listeners hear of it (the driver stops) and its later writes are fenced without asking the database.
 */
export class PostgresLeases implements RunLeases {
  readonly leaseMs: number;
  readonly #connection: PostgresConnection;
  readonly #sql: (text: string) => string;
  readonly #claimableChannel: string;
  readonly #cancelChannel: string;
  readonly #held = new Map<string, number>();
  readonly #lost = new Set<string>();
  readonly #lostListeners = new Set<(runId: string) => void>();
  readonly #notifications: PostgresNotifications;
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #beating: Promise<void> | undefined;

  constructor(input: {
    connection: PostgresConnection;
    notifications: PostgresNotifications;
    sql: (text: string) => string;
    claimableChannel: string;
    cancelChannel: string;
    leaseMs: number;
  }) {
    this.#connection = input.connection;
    this.#notifications = input.notifications;
    this.#sql = input.sql;
    this.#claimableChannel = input.claimableChannel;
    this.#cancelChannel = input.cancelChannel;
    this.leaseMs = input.leaseMs;
  }

  /** The lease's length as an SQL interval parameter. */
  get interval(): string {
    return `${this.leaseMs} milliseconds`;
  }

  /** The epoch this process holds for the run, "lost" when another instance took it over, undefined when none. */
  epochOf(runId: string): number | "lost" | undefined {
    if (this.#lost.has(runId)) return "lost";
    return this.#held.get(runId);
  }

  hold(runId: string, epoch: number): void {
    this.#lost.delete(runId);
    this.#held.set(runId, epoch);
    if (!this.#heartbeat) {
      this.#heartbeat = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.leaseMs / 3)));
      this.#heartbeat.unref?.();
    }
  }

  release(runId: string): void {
    this.#held.delete(runId);
    if (this.#held.size === 0 && this.#heartbeat) {
      clearInterval(this.#heartbeat);
      this.#heartbeat = undefined;
    }
  }

  forget(runId: string): void {
    this.#lost.delete(runId);
    this.release(runId);
  }

  /**
   * The first statement of a run's state transaction: lock the run's row and check this process still holds it.
   * Throws RunFencedError (nothing written) otherwise.
   */
  async fence(client: Queryable, runId: string, at: string): Promise<number> {
    const epoch = this.epochOf(runId);
    if (epoch === undefined || epoch === "lost") throw this.#fenced(runId, epoch);
    const { rowCount } = await client.query(
      this.#sql("UPDATE {S}.runs SET updated_at = $3 WHERE id = $1 AND epoch = $2"),
      [runId, epoch, at],
    );
    if (rowCount !== 1) {
      this.#markLost(runId);
      throw this.#fenced(runId, "lost");
    }
    return epoch;
  }

  #fenced(runId: string, state: "lost" | undefined): RunFencedError {
    return new RunFencedError(
      state === "lost"
        ? `Run ${runId} was taken over by another instance (this one's lease expired); nothing more is written for it here.`
        : `Run ${runId} is not driven by this process (it holds no lease on it); nothing was written.`,
    );
  }

  #markLost(runId: string): void {
    if (!this.#held.has(runId)) return;
    this.release(runId);
    this.#lost.add(runId);
    for (const listener of [...this.#lostListeners]) listener(runId);
  }

  /** Renew every held lease in one statement; those whose epoch moved on are lost. */
  renew(): Promise<void> {
    this.#beating ??= this.#renew().finally(() => {
      this.#beating = undefined;
    });
    return this.#beating;
  }

  async #renew(): Promise<void> {
    const held = [...this.#held];
    if (held.length === 0) return;
    let rows: Row[];
    try {
      rows = await this.#connection.query(
        this.#sql(
          `UPDATE {S}.runs r SET lease_until = now() + $3::interval
           FROM unnest($1::text[], $2::bigint[]) AS h(id, epoch)
           WHERE r.id = h.id AND r.epoch = h.epoch AND r.status = 'running'
           RETURNING r.id`,
        ),
        [held.map(([id]) => id), held.map(([, epoch]) => epoch), this.interval],
      );
    } catch {
      // The server cannot be reached: nobody else can take the runs over either. The next beat tries again.
      return;
    }
    const renewed = new Set(rows.map((r) => String(r.id)));
    for (const [id, epoch] of held) {
      // Released or re-claimed meanwhile: not this beat's business.
      if (!renewed.has(id) && this.#held.get(id) === epoch) this.#markLost(id);
    }
  }

  async claimNext(owner: string, withOption?: string): Promise<RunRecord | undefined> {
    const at = new Date().toISOString();
    const row = await this.#connection.tx(async (client) => {
      const { rows } = await client.query(
        this.#sql(
          `UPDATE {S}.runs r SET status = 'running', stop_reason = NULL, owner = $1, epoch = r.epoch + 1,
             lease_until = now() + $2::interval, resumable = false, updated_at = $3
           FROM (
             SELECT id FROM {S}.runs
             WHERE ((resumable AND status = 'paused') OR (status = 'running' AND lease_until < now()))
               AND ($4::text IS NULL OR options::jsonb ? $4)
             ORDER BY updated_at LIMIT 1
             FOR UPDATE SKIP LOCKED
           ) c
           WHERE r.id = c.id
           RETURNING r.*`,
        ),
        [owner, this.interval, at, withOption ?? null],
      );
      return rows[0] as Row | undefined;
    });
    if (!row) return undefined;
    this.hold(String(row.id), Number(row.epoch));
    return runFromRow(row);
  }

  onLost(listener: (runId: string) => void): () => void {
    this.#lostListeners.add(listener);
    return () => this.#lostListeners.delete(listener);
  }

  onClaimable(listener: () => void): () => void {
    const off = this.#notifications.on(this.#claimableChannel, () => listener());
    // Notifications sent while the LISTEN connection was down are lost: look again.
    const offReconnect = this.#notifications.onReconnect(listener);
    return () => {
      off();
      offReconnect();
    };
  }

  onCancelRequested(listener: (runId: string) => void): () => void {
    return this.#notifications.on(this.#cancelChannel, (runId) => listener(runId));
  }

  /** Stop the heartbeat (the store is closing); held leases expire on their own. */
  stop(): void {
    if (this.#heartbeat) clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }

  /**
   * Give every held run up now, for a graceful shutdown: from this moment this process writes nothing more for them
   * (fenced here, without asking the database), and their leases are expired at once so another instance takes them
   * over without waiting. A call that was executing is reported as interrupted there, never run again.
   */
  async handOver(): Promise<void> {
    const held = [...this.#held];
    this.stop();
    for (const [id] of held) {
      this.#held.delete(id);
      this.#lost.add(id);
    }
    if (held.length === 0) return;
    await this.#connection
      .query(
        this.#sql(
          `UPDATE {S}.runs r SET lease_until = now() - interval '1 millisecond'
           FROM unnest($1::text[], $2::bigint[]) AS h(id, epoch)
           WHERE r.id = h.id AND r.epoch = h.epoch AND r.status = 'running'`,
        ),
        [held.map(([id]) => id), held.map(([, epoch]) => epoch)],
      )
      .catch(() => {});
    const notify = this.#sql("SELECT pg_notify($1, '')");
    await this.#connection.query(notify, [this.#claimableChannel]).catch(() => {});
  }
}
