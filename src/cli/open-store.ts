import { existsSync } from "node:fs";
import path from "node:path";
import { defaultDbPath } from "../store/default-db-path.js";
import { SqliteStore, StoreOpenError } from "../store/sqlite-store.js";
import { CliError } from "./cli-error.js";

/** A `--db` value written as a URL (`scheme://…`) rather than a file path. */
const URL_LIKE = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * `--db <file>` resolved against the working directory, or the user's data folder. A URL is refused (exit 2): taken as
 * a path, `postgres://host/app` would become an SQLite file named like the URL, and the user's runs would land in a
 * stray local file while they believe them to be in their server.
 */
export function resolveDbPath(db: string | undefined): string {
  if (db !== undefined && URL_LIKE.test(db.trim())) {
    const scheme = db.trim().slice(0, db.trim().indexOf(":")).toLowerCase();
    throw new CliError(
      `--db ${redactUrlPassword(db.trim())} is a URL, and this toolbridge keeps its data in an SQLite file: ${scheme === "postgres" || scheme === "postgresql" ? "PostgreSQL is not supported yet" : `"${scheme}" is not a database it can use`}. Nothing was created. Pass a file path (e.g. --db ./toolbridge.db).`,
      2,
    );
  }
  return db ? path.resolve(db) : defaultDbPath();
}

/** A URL with its password (if any) replaced by `***`, for messages. */
export function redactUrlPassword(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/?#@]*:)[^@/?#]*@/i, "$1***@");
}

/** Open the store every command shares; a database that cannot be opened is a usage error (exit 2). */
export function openStore(db: string | undefined): SqliteStore {
  try {
    return new SqliteStore(resolveDbPath(db));
  } catch (error) {
    if (error instanceof StoreOpenError) throw new CliError(error.message, 2);
    throw error;
  }
}

/**
 * For commands that only read (`runs list/show/approve/deny/resume`, `chat --conversation`): a database that does not
 * exist is reported (exit 2) instead of being created, folder and all, empty.
 */
export function openExistingStore(db: string | undefined): SqliteStore {
  const file = resolveDbPath(db);
  if (!existsSync(file)) {
    throw new CliError(
      `No database at ${file}: nothing has been stored there yet (\`toolbridge run\` and \`toolbridge chat\` create it). Check ${db === undefined ? "whether to pass --db <file>" : "the --db path"}.`,
    );
  }
  return openStore(db);
}
