import { existsSync } from "node:fs";
import path from "node:path";
import { loadConfig } from "../config/load-config.js";
import type { McpApprovalStore } from "../mcp/mcp-approvals.js";
import { defaultDataDir, defaultDbPath } from "../store/default-db-path.js";
import { McpApprovalLedger } from "../store/mcp-approval-ledger.js";
import { redactDbUrl } from "../store/postgres-connection.js";
import type { PostgresDatabase } from "../store/postgres-database.js";
import type { RunEventLog } from "../store/run-event-log.js";
import { SqliteConversationEraser } from "../store/sqlite-conversation-eraser.js";
import { SqliteConversationTitles } from "../store/sqlite-conversation-titles.js";
import { SqliteRunEventLog } from "../store/sqlite-run-event-log.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { SqliteToolSettingsStore } from "../store/sqlite-tool-settings-store.js";
import type { Store } from "../store/store.js";
import { StoreOpenError } from "../store/store-open-error.js";
import type { ToolSettingsStore } from "../store/tool-settings-store.js";
import type { ConversationRecords } from "../store/unfinished-runs.js";
import { CliError } from "./cli-error.js";

/** A `--db` value written as a URL (`scheme://…`) rather than a file path. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;
const POSTGRES_URL = /^postgres(?:ql)?:\/\//i;

/** Where a command keeps its data: an SQLite file, or a PostgreSQL database (shared by several instances). */
export type DbLocation = { kind: "sqlite"; file: string } | { kind: "postgres"; url: string };

/** What says where the database is, besides the default: `--db`, the config's `"db"`, the environment. */
export interface DbChoice {
  /** `--db` as given. */
  db?: string | undefined;
  /** The config file's `"db"` (a path already resolved against the file's folder, or a URL). */
  configDb?: string | undefined;
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The database a command uses: `--db`, else `$TOOLBRIDGE_DB_URL`, else the config's `"db"`, else the SQLite file in
 * the user's data folder. A path is an SQLite file (resolved against the working directory); `postgres://` or
 * `postgresql://` is PostgreSQL. Any other URL is refused (exit 2) before anything is created: taken as a path,
 * `mysql://host/app` would become an SQLite file named like the URL, and the user's runs would land in a stray local
 * file while they believe them to be in their server.
 */
export function resolveDbLocation(choice: DbChoice = {}): DbLocation {
  const env = choice.env ?? process.env;
  const fromEnv = env.TOOLBRIDGE_DB_URL?.trim() ? env.TOOLBRIDGE_DB_URL.trim() : undefined;
  const [given, source] =
    choice.db !== undefined
      ? [choice.db.trim(), "--db"]
      : fromEnv !== undefined
        ? [fromEnv, "TOOLBRIDGE_DB_URL"]
        : choice.configDb !== undefined
          ? [choice.configDb.trim(), 'the config\'s "db"']
          : [undefined, ""];
  if (given === undefined || given === "") return { kind: "sqlite", file: defaultDbPath(env) };
  if (POSTGRES_URL.test(given)) return { kind: "postgres", url: given };
  if (URL_LIKE.test(given)) {
    const scheme = given.slice(0, given.indexOf(":")).toLowerCase();
    throw new CliError(
      `${source} ${redactDbUrl(given)} is a URL of a database toolbridge cannot use ("${scheme}"); nothing was created. Use a PostgreSQL URL (postgres://user@host:5432/db) or a path to an SQLite file (e.g. ./toolbridge.db).`,
      2,
    );
  }
  return { kind: "sqlite", file: path.resolve(given) };
}

/** The config's `"db"` for commands that do not load the rest of the config (the `runs` commands). */
export function configuredDb(configPath?: string): string | undefined {
  return loadConfig(configPath === undefined ? {} : { configPath }).config.db;
}

/** Where the location is, for messages: the file, or the URL without its password. */
export function describeDbLocation(location: DbLocation): string {
  return location.kind === "sqlite" ? location.file : redactDbUrl(location.url);
}

/**
 * Everything a command keeps in its database, opened once: the Store (runs, memory), the run event log, tool
 * settings, the conversation eraser and the MCP approval ledger. SQLite or PostgreSQL alike.
 */
export interface OpenedDatabase {
  readonly kind: DbLocation["kind"];
  /** The file, or the URL without its password. */
  readonly location: string;
  readonly store: Store;
  readonly events: RunEventLog;
  readonly toolSettings: ToolSettingsStore;
  readonly conversations: ConversationRecords;
  /** Where a command writes its traces: next to the SQLite file, else in the user's data folder. */
  readonly traceDir: string | undefined;
  /** The MCP approvals' ledger and signing key, shared by every instance on this database. */
  mcpApprovalStore(): Promise<McpApprovalStore>;
  /** For a server shutting down beside others: give its runs to the other instances, then close. */
  handOverAndClose(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Whether something is stored there already: an SQLite file that exists. A PostgreSQL server is asked when opened.
 * Commands that only read use it so that a mistyped path is reported instead of created, folder and all, empty.
 */
export function dbExists(location: DbLocation): boolean {
  return location.kind === "postgres" || existsSync(location.file);
}

/** `$TOOLBRIDGE_RUN_LEASE_MS`: how long a PostgreSQL run lease lasts (default 30 s; tests shorten it). */
function leaseMsFromEnv(env: Readonly<Record<string, string | undefined>>): number | undefined {
  const text = env.TOOLBRIDGE_RUN_LEASE_MS;
  if (text === undefined || text === "") return undefined;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 100)
    throw new CliError(
      `TOOLBRIDGE_RUN_LEASE_MS must be a whole number of milliseconds, 100 or more; got "${text}".`,
    );
  return value;
}

/** Open the database (creating an SQLite file and its folder; migrating either); bad locations exit 2. */
export async function openDatabase(location: DbLocation, env = process.env): Promise<OpenedDatabase> {
  try {
    if (location.kind === "postgres") {
      // Loaded only here: `pg` is an optional peer dependency, needed only by those who use PostgreSQL.
      const { PostgresDatabase } = await import("../store/postgres-database.js");
      const leaseMs = leaseMsFromEnv(env);
      return postgresParts(
        await PostgresDatabase.open(location.url, leaseMs === undefined ? {} : { leaseMs }),
      );
    }
    return sqliteParts(new SqliteStore(location.file));
  } catch (error) {
    if (error instanceof StoreOpenError) throw new CliError(error.message, 2);
    throw error;
  }
}

function sqliteParts(store: SqliteStore): OpenedDatabase {
  let events: SqliteRunEventLog | undefined;
  let toolSettings: SqliteToolSettingsStore | undefined;
  let conversations: ConversationRecords | undefined;
  return {
    kind: "sqlite",
    location: store.location,
    store,
    // Made on first use: each prepares its statements on the connection.
    get events() {
      events ??= new SqliteRunEventLog(store.db);
      return events;
    },
    get toolSettings() {
      toolSettings ??= new SqliteToolSettingsStore(store.db);
      return toolSettings;
    },
    get conversations() {
      if (!conversations) {
        const eraser = new SqliteConversationEraser(store.db);
        const titles = new SqliteConversationTitles(store.db);
        conversations = {
          unfinishedRuns: (id) => eraser.unfinishedRuns(id),
          erase: (id) => eraser.erase(id),
          titles: (ids) => titles.titles(ids),
          rename: (id, title) => titles.rename(id, title),
        };
      }
      return conversations;
    },
    traceDir: store.location === ":memory:" ? undefined : path.join(path.dirname(store.location), "traces"),
    mcpApprovalStore: async () => new McpApprovalLedger(store.db),
    handOverAndClose: () => store.close(),
    close: () => store.close(),
  };
}

function postgresParts(database: PostgresDatabase): OpenedDatabase {
  return {
    kind: "postgres",
    location: database.location,
    store: database.store,
    events: database.events,
    toolSettings: database.toolSettings,
    conversations: database.conversations,
    traceDir: path.join(defaultDataDir(), "traces"),
    async mcpApprovalStore() {
      // The key is read once, now: requestState is signed synchronously.
      const key = await database.mcpLedger.signingKey();
      return {
        consume: (id: string, expiresAtMs: number) => database.mcpLedger.consume(id, expiresAtMs),
        signingKey: () => key,
      };
    },
    handOverAndClose: () => database.handOverAndClose(),
    close: () => database.close(),
  };
}

/**
 * A command's database, opened at its first use: listing tools, or serving only tools that need no database, must
 * not create an SQLite file. Opened once; `close` closes it if it was.
 */
export class LazyDatabase {
  readonly location: DbLocation;
  #opened: OpenedDatabase | undefined;
  #opening: Promise<OpenedDatabase> | undefined;

  constructor(location: DbLocation) {
    this.location = location;
  }

  /** An SQLite store already open (a program or test that made its own), as a command's database. */
  static ofSqlite(store: SqliteStore): LazyDatabase {
    const database = new LazyDatabase({ kind: "sqlite", file: store.location });
    database.#opened = sqliteParts(store);
    database.#opening = Promise.resolve(database.#opened);
    return database;
  }

  /** The file, or the URL without its password. */
  get label(): string {
    return describeDbLocation(this.location);
  }

  /** Whether something is stored there already (an SQLite file exists; a PostgreSQL server is always asked). */
  exists(): boolean {
    return this.#opened !== undefined || dbExists(this.location);
  }

  get opened(): OpenedDatabase | undefined {
    return this.#opened;
  }

  /**
   * For commands that only read (`runs list/show/approve/deny/resume`, `chat --conversation`): an SQLite file that
   * does not exist is reported (exit 2) instead of being created, folder and all, empty. `given`: `--db` as given.
   */
  openExisting(given: string | undefined): Promise<OpenedDatabase> {
    if (!this.exists()) {
      throw new CliError(
        `No database at ${this.label}: nothing has been stored there yet (\`toolbridge run\` and \`toolbridge chat\` create it). Check ${given === undefined ? "whether to pass --db <file>" : "the --db path"}.`,
      );
    }
    return this.open();
  }

  open(): Promise<OpenedDatabase> {
    if (this.#opened) return Promise.resolve(this.#opened);
    this.#opening ??= openDatabase(this.location).then((db) => {
      this.#opened = db;
      return db;
    });
    return this.#opening;
  }

  /**
   * The SQLite database, opened now if need be, for the one caller that cannot wait (MCP approvals sign with the
   * stored key synchronously). PostgreSQL is opened ahead instead (see mcpApprovalStoreSource).
   */
  openSqliteNow(): OpenedDatabase {
    if (this.#opened) return this.#opened;
    if (this.location.kind !== "sqlite") throw new Error("only an SQLite database opens synchronously");
    try {
      this.#opened = sqliteParts(new SqliteStore(this.location.file));
    } catch (error) {
      if (error instanceof StoreOpenError) throw new CliError(error.message, 2);
      throw error;
    }
    this.#opening = Promise.resolve(this.#opened);
    return this.#opened;
  }

  async close(): Promise<void> {
    await (this.#opening ?? Promise.resolve(undefined)).then(
      (db) => db?.close(),
      () => {},
    );
  }

  async handOverAndClose(): Promise<void> {
    await (this.#opening ?? Promise.resolve(undefined)).then(
      (db) => db?.handOverAndClose(),
      () => {},
    );
  }
}

/**
 * Where MCP approvals keep their single-use states and signing key: the database, so every instance on it agrees.
 * SQLite: opened when a gated tool is first asked for (serving only ungated tools creates no file). PostgreSQL:
 * opened now, and the key read now.
 */
export async function mcpApprovalStoreSource(database: LazyDatabase): Promise<() => McpApprovalStore> {
  if (database.location.kind === "postgres") {
    const store = await (await database.open()).mcpApprovalStore();
    return () => store;
  }
  return () => new McpApprovalLedger((database.openSqliteNow().store as SqliteStore).db);
}
