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
