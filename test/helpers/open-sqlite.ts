import Database from "better-sqlite3";
import { keepDatabaseAlive } from "../../src/store/keep-native-alive.js";

/**
 * A better-sqlite3 connection for tests that read a store's file directly. Its objects are kept until the process
 * ends (src/store/keep-native-alive.ts): on Node 24.19+ a collected one aborts the test process.
 */
export function openSqlite(file: string, options?: Database.Options): Database.Database {
  return keepDatabaseAlive(new Database(file, options));
}
