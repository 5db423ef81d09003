import { PostgresConnection, type PostgresConnectionOptions, redactDbUrl } from "./postgres-connection.js";
import { PostgresConversationEraser } from "./postgres-conversation-eraser.js";
import { PostgresLeases } from "./postgres-leases.js";
import { PostgresMcpApprovalLedger } from "./postgres-mcp-approval-ledger.js";
import { migratePostgres, quoteSchema } from "./postgres-migrations.js";
import { PostgresNotifications } from "./postgres-notifications.js";
import { PostgresRunEventLog } from "./postgres-run-event-log.js";
import { PostgresStore } from "./postgres-store.js";
import { PostgresToolSettingsStore } from "./postgres-tool-settings-store.js";

export interface PostgresDatabaseOptions extends PostgresConnectionOptions {
  /** The schema toolbridge's tables live in. Default `toolbridge`. */
  schema?: string;
  /**
   * How long a run's lease lasts without a heartbeat (ms): after a crash, another instance takes the run over this
   * long after the last heartbeat. Default 30 s; the heartbeat renews every third of it.
   */
  leaseMs?: number;
}

/** Connections of the event log's reads (see PostgresRunEventLog.list): reads in flight at once, each a batch. */
const READER_CONNECTIONS = 2;

/** Whether `location` is a PostgreSQL URL (`postgres://` or `postgresql://`). */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(?:ql)?:\/\//i.test(location.trim());
}

/**
 * Everything toolbridge keeps in one PostgreSQL database, opened together on one connection pool and one LISTEN
 * connection: the Store (runs, memory), the run event log, tool settings, the MCP approval ledger and the conversation
 * eraser. `open` connects, then brings the schema up to date (postgres-migrations.ts). Closing the store closes it all.
 */
export class PostgresDatabase {
  readonly store: PostgresStore;
  readonly events: PostgresRunEventLog;
  readonly toolSettings: PostgresToolSettingsStore;
  readonly mcpLedger: PostgresMcpApprovalLedger;
  readonly conversations: PostgresConversationEraser;
  readonly connection: PostgresConnection;
  readonly notifications: PostgresNotifications;
  readonly leases: PostgresLeases;
  readonly schemaVersion: number;
  /** The URL with its password hidden: what messages and `store.location` show. */
  readonly location: string;
  #closing: Promise<void> | undefined;
  readonly #writer: PostgresConnection;
  readonly #reader: PostgresConnection;

  private constructor(
    connection: PostgresConnection,
    writer: PostgresConnection,
    reader: PostgresConnection,
    schema: string,
    schemaVersion: number,
    leaseMs: number,
  ) {
    this.connection = connection;
    this.#writer = writer;
    this.#reader = reader;
    this.schemaVersion = schemaVersion;
    this.location = redactDbUrl(connection.url);
    const S = quoteSchema(schema);
    const sql = (text: string) => text.replaceAll("{S}", S);
    const channel = (name: string) => `${schema}_${name}`;
    this.notifications = new PostgresNotifications(connection);
    this.leases = new PostgresLeases({
      connection,
      notifications: this.notifications,
      sql,
      claimableChannel: channel("runs"),
      cancelChannel: channel("cancels"),
      leaseMs,
    });
    this.store = new PostgresStore({
      connection,
      leases: this.leases,
      sql,
      claimableChannel: channel("runs"),
      cancelChannel: channel("cancels"),
      location: this.location,
      close: () => this.close(),
    });
    this.events = new PostgresRunEventLog({
      connection,
      writer,
      reader,
      readerConnections: READER_CONNECTIONS,
      leases: this.leases,
      notifications: this.notifications,
      sql,
      channel: channel("events"),
    });
    this.toolSettings = new PostgresToolSettingsStore({
      connection,
      notifications: this.notifications,
      sql,
      channel: channel("tool_settings"),
    });
    this.mcpLedger = new PostgresMcpApprovalLedger(connection, sql);
    this.conversations = new PostgresConversationEraser(connection, sql);
  }

  static async open(url: string, options: PostgresDatabaseOptions = {}): Promise<PostgresDatabase> {
    const schema = options.schema ?? "toolbridge";
    quoteSchema(schema);
    const leaseMs = options.leaseMs ?? 30_000;
    if (!Number.isInteger(leaseMs) || leaseMs < 100)
      throw new RangeError(`leaseMs must be a whole number of milliseconds, 100 or more; got ${leaseMs}.`);
    // A process paused inside a transaction must not hold its locks past its lease: others take its runs over then.
    const connectionOptions = { idleInTransactionTimeoutMs: Math.min(leaseMs, 10_000), ...options };
    const connection = await PostgresConnection.open(url, connectionOptions);
    let writer: PostgresConnection | undefined;
    let reader: PostgresConnection | undefined;
    try {
      const version = await connection.tx((client) => migratePostgres(client, schema, redactDbUrl(url)));
      // The event log's appends get a connection of their own (see PostgresRunEventLog).
      writer = await PostgresConnection.open(url, { ...connectionOptions, maxConnections: 1 });
      // And its reads theirs: the live events of streams must not queue behind run transactions for the pool.
      reader = await PostgresConnection.open(url, {
        ...connectionOptions,
        maxConnections: READER_CONNECTIONS,
      });
      const database = new PostgresDatabase(connection, writer, reader, schema, version, leaseMs);
      // Listening from the start: the channels registered later join the same connection.
      await database.notifications.start();
      return database;
    } catch (error) {
      await writer?.close().catch(() => {});
      await reader?.close().catch(() => {});
      await connection.close().catch(() => {});
      throw error;
    }
  }

  /**
   * Give up this process's runs for another instance to take over (see PostgresLeases.handOver), then close. Used by
   * a server that shuts down while other instances go on.
   */
  async handOverAndClose(): Promise<void> {
    await this.leases.handOver();
    await this.close();
  }

  /** Flush the event log, stop the heartbeat and the LISTEN connection, close the pool. Safe to call twice. */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      await this.events.flush().catch(() => {});
      this.events.stopWatching();
      this.leases.stop();
      await this.notifications.close();
      await this.#writer.close();
      await this.#reader.close();
      await this.connection.close();
    })();
    return this.#closing;
  }
}
