import { existsSync } from "node:fs";
import path from "node:path";
import { defaultDbPath } from "../store/default-db-path.js";
import { SqliteStore, StoreOpenError } from "../store/sqlite-store.js";
import { CliError } from "./cli-error.js";

/** `--db <file>` resolved against the working directory, or the user's data folder. */
export function resolveDbPath(db: string | undefined): string {
  return db ? path.resolve(db) : defaultDbPath();
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
