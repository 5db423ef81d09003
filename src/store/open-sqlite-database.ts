import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import type Database from "better-sqlite3";
import { keepDatabaseAlive, keepNativeAlive } from "./keep-native-alive.js";
import { MIGRATIONS, SCHEMA_VERSION } from "./migrations.js";
import { StoreOpenError } from "./store-open-error.js";

export { StoreOpenError } from "./store-open-error.js";

export interface SqliteStoreOptions {
  /**
   * `full` (default): every commit is fsynced, so it survives power loss, not just a process crash. `normal` is
   * faster and still survives a crash of the process (WAL), which is enough for benchmarks and tests.
   */
  synchronous?: "full" | "normal";
}

/** A statement of the connection by its SQL: prepared on first use, then the same object every time. */
export type StatementCache = (sql: string) => Database.Statement;

export interface OpenedSqliteDatabase {
  db: Database.Database;
  statement: StatementCache;
}

let driver: typeof Database | undefined;
/**
 * better-sqlite3 is a native addon: it is loaded when the first SqliteStore opens, not when toolbridge is imported,
 * so a program that keeps its runs elsewhere (InMemoryStore, its own store) never loads it.
 */
function sqlite(): typeof Database {
  driver ??= createRequire(import.meta.url)("better-sqlite3") as typeof Database;
  return driver;
}

/**
 * Open (creating its folder) the store's SQLite file, set its pragmas and bring its schema up to date. Every
 * better-sqlite3 object made here and through the returned cache is kept alive until the process ends
 * (keep-native-alive.ts, Node 24): statements are prepared once and kept, and pragmas run through `exec`, never
 * `db.pragma()` (which prepares a statement each call and leaves it to the collector).
 */
export function openSqliteDatabase(location: string, options: SqliteStoreOptions = {}): OpenedSqliteDatabase {
  if (location !== ":memory:") {
    try {
      mkdirSync(path.dirname(path.resolve(location)), { recursive: true });
    } catch (error) {
      throw new StoreOpenError(
        `Cannot create the folder for database ${location}: ${(error as Error).message}`,
      );
    }
  }
  let db: Database.Database;
  try {
    db = keepDatabaseAlive(new (sqlite())(location));
  } catch (error) {
    throw new StoreOpenError(
      `Cannot open database ${location}: ${(error as Error).message}. Pass another --db path.`,
    );
  }
  db.exec(
    `PRAGMA journal_mode = WAL; PRAGMA synchronous = ${options.synchronous === "normal" ? "NORMAL" : "FULL"}; PRAGMA busy_timeout = 5000; PRAGMA foreign_keys = ON;`,
  );
  const statements = new Map<string, Database.Statement>();
  const statement: StatementCache = (sql) => {
    let prepared = statements.get(sql);
    if (!prepared) {
      prepared = keepNativeAlive(db.prepare(sql));
      statements.set(sql, prepared);
    }
    return prepared;
  };
  migrate(db, location, statement);
  return { db, statement };
}

/** `PRAGMA user_version`: the last migration applied. */
export function readSchemaVersion(statement: StatementCache): number {
  return Number(statement("PRAGMA user_version").pluck().get());
}

/**
 * Apply the migrations this file has not had, each in its own IMMEDIATE transaction with its version bump; a file
 * written by a newer toolbridge is refused rather than guessed at.
 */
function migrate(db: Database.Database, location: string, statement: StatementCache): void {
  const current = readSchemaVersion(statement);
  if (current > SCHEMA_VERSION) {
    throw new StoreOpenError(
      `Database ${location} has schema version ${current}, newer than this toolbridge understands (${SCHEMA_VERSION}). Upgrade toolbridge.`,
    );
  }
  for (const migration of MIGRATIONS) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migration.sql);
      db.exec(`PRAGMA user_version = ${migration.version}`);
    }).immediate();
  }
}
