import { createRequire } from "node:module";
import type pg from "pg";
import { ToolbridgeError } from "../core/toolbridge-error.js";
import { StoreOpenError } from "./store-open-error.js";

/** A PostgreSQL URL with its password replaced by `***`, for messages and `store.location`. */
export function redactDbUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^@/?#]*@/i, "$1***@");
}

let driver: typeof pg | undefined;
/**
 * `pg` is an optional peer dependency: loaded when a PostgreSQL URL is opened, never by `import "toolbridge"`, so an
 * installation that keeps its runs in SQLite does not need it.
 */
function loadPg(): typeof pg {
  if (!driver) {
    try {
      driver = createRequire(import.meta.url)("pg") as typeof pg;
    } catch {
      throw new StoreOpenError(
        "A PostgreSQL database needs the `pg` package, which is not installed: run `npm install pg` (next to toolbridge), or use an SQLite file with --db <file>.",
      );
    }
  }
  return driver;
}

/** Errors after which the connection is gone (server restart, network) and nothing of an open transaction was kept. */
const CONNECTION_CODES = new Set([
  "57P01", // admin_shutdown: pg_ctl stop/restart
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up or shutting down
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

export function isConnectionError(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === "string" && CONNECTION_CODES.has(e.code)) return true;
  const message = typeof e?.message === "string" ? e.message : "";
  return /Connection terminated|connection error|not queryable|timeout exceeded when trying to connect|Client was closed/i.test(
    message,
  );
}

/** Errors after which the same transaction, run again, may well succeed. */
function isRetryable(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return code === "40001" || code === "40P01" || isConnectionError(error);
}

export interface PostgresConnectionOptions {
  /** Connections in the pool (besides the LISTEN one). Default 10. */
  maxConnections?: number;
  /**
   * How long an operation keeps retrying while the server cannot be reached (a restart, a failover) before it fails.
   * Default 30 s.
   */
  retryForMs?: number;
  /**
   * The server ends a session that sits this long inside a transaction (`idle_in_transaction_session_timeout`). Our
   * transactions send their statements back to back, so only a process that stopped mid-transaction (paused, hung,
   * cut off) hits it — and its row and advisory locks would otherwise block the instances taking its runs over until
   * TCP gives up, hours later. Default 10 s.
   */
  idleInTransactionTimeoutMs?: number;
}

/** Rows of a query, typed by the caller. */
export type Rows = Array<Record<string, unknown>>;

/*
 * What the store uses of pg's clients, declared here instead of taken from pg's types: pg is an optional peer, and a
 * program that imports toolbridge/store without it (an SQLite user) must still type-check with skipLibCheck: false.
 */

/** A pg client inside a transaction, or the pool: one statement at a time. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<{ rows: Rows; rowCount: number | null }>;
}

/** A connection of its own (not from the pool), for LISTEN. */
export interface ListenClient {
  connect(): Promise<unknown>;
  query(sql: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: "error" | "end", listener: () => void): unknown;
  on(event: "notification", listener: (message: { channel: string; payload?: string }) => void): unknown;
}

/**
 * The pool every PostgreSQL part of the store shares, with the two things `pg` leaves to its user:
 *
 * - Transactions that survive a restart of the server: `tx` runs its body between BEGIN and COMMIT and, when the
 *   connection drops before COMMIT was sent (so the server rolled everything back), or on a serialization failure or
 *   deadlock, runs it again on a new connection, with backoff, for up to `retryForMs`. A body must therefore do nothing
 *   outside the database that it cannot do twice. A connection lost *during* COMMIT is not retried: whether it
 *   committed is unknown, and running it again could write twice.
 * - Reads retried the same way (`query`); single-statement writes go through `tx`.
 *
 * Timestamps (`timestamptz`) come back as ISO strings and 64-bit integers as numbers: the records' shapes are the
 * SQLite store's. The type parsers are this pool's own, so a program that uses `pg` itself is not affected.
 */
export class PostgresConnection {
  readonly #pool: pg.Pool;
  readonly url: string;
  readonly #retryForMs: number;
  #closed = false;

  private constructor(url: string, pool: pg.Pool, retryForMs: number) {
    this.url = url;
    this.#pool = pool;
    this.#retryForMs = retryForMs;
  }

  /** Connect (one round trip checks the server is there) or throw StoreOpenError naming the URL without password. */
  static async open(url: string, options: PostgresConnectionOptions = {}): Promise<PostgresConnection> {
    const { Pool, types } = loadPg();
    const parsers: Record<number, (text: string) => unknown> = {
      [types.builtins.TIMESTAMPTZ]: (text) => new Date(text).toISOString(),
      [types.builtins.INT8]: (text) => Number(text),
    };
    const pool = new Pool({
      connectionString: url,
      max: options.maxConnections ?? 10,
      connectionTimeoutMillis: 10_000,
      application_name: "toolbridge",
      // A connection silently cut (a network partition, no RST) is found by TCP keepalive, not hours later.
      keepAlive: true,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 10_000,
      types: {
        getTypeParser: ((oid: number, format?: "text" | "binary") =>
          parsers[oid] ?? types.getTypeParser(oid, format)) as typeof types.getTypeParser,
      },
    });
    // An idle connection the server closed (restart, idle timeout) is dropped by the pool, which reports it here;
    // without a listener the error would end the process. The next query makes a new connection.
    pool.on("error", () => {});
    const connection = new PostgresConnection(url, pool, options.retryForMs ?? 30_000);
    try {
      await pool.query("SELECT 1");
    } catch (error) {
      await pool.end().catch(() => {});
      throw new StoreOpenError(
        `Cannot connect to the PostgreSQL database ${redactDbUrl(url)}: ${(error as Error).message}. Check the URL, that the server runs and that it accepts this user.`,
      );
    }
    return connection;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** A read (or a single idempotent statement), retried while the server cannot be reached. */
  async query(sql: string, params: readonly unknown[] = []): Promise<Rows> {
    return this.#retrying(async () => (await this.#pool.query(sql, params as unknown[])).rows);
  }

  /**
   * Run `body` in one transaction (READ COMMITTED) and resolve once it is committed. Retried whole, on a new
   * connection, when the connection dropped before COMMIT or the server asks for a retry (serialization, deadlock).
   */
  async tx<T>(body: (client: Queryable) => Promise<T>): Promise<T> {
    return this.#retrying(async () => {
      const client = await this.#pool.connect();
      let broken: Error | undefined;
      let committing = false;
      // A checked-out client reports a dropped connection (server restart, idle-in-transaction timeout) as an 'error'
      // event; unheard, it would end the process. The statement in flight fails with it and is retried.
      const onError = (error: Error) => {
        broken = error;
      };
      client.on("error", onError);
      try {
        await client.query("BEGIN");
        const result = await body(client);
        committing = true;
        await client.query("COMMIT");
        return result;
      } catch (error) {
        if (isConnectionError(error)) broken = error as Error;
        else if (!committing) await client.query("ROLLBACK").catch((e: Error) => (broken = e));
        if (committing && isConnectionError(error)) {
          throw new ToolbridgeError(
            `The connection to PostgreSQL dropped while a transaction was committing; it may or may not have been saved: ${(error as Error).message}`,
          );
        }
        throw error;
      } finally {
        client.off("error", onError);
        // A connection that failed is destroyed, not handed to the next caller.
        client.release(broken);
      }
    });
  }

  async #retrying<T>(attempt: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.#retryForMs;
    let wait = 50;
    for (;;) {
      try {
        return await attempt();
      } catch (error) {
        if (this.#closed || !isRetryable(error) || Date.now() + wait > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, 1000);
      }
    }
  }

  /** A dedicated client (not from the pool), e.g. for LISTEN. */
  newClient(): ListenClient {
    const { Client } = loadPg();
    return new Client({ connectionString: this.url, application_name: "toolbridge-listen", keepAlive: true });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#pool.end();
  }
}
