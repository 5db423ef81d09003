/**
 * Every store keeps the same rules: one row per store, each row run through every contract (runs and calls, memory
 * search ranking, the Runs API's event log, tool settings). A new store is a new row here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { InMemoryRunEventLog } from "../../src/store/in-memory-run-event-log.js";
import { InMemoryStore } from "../../src/store/in-memory-store.js";
import { InMemoryToolSettingsStore } from "../../src/store/in-memory-tool-settings-store.js";
import { PostgresDatabase } from "../../src/store/postgres-database.js";
import type { RunEventLog } from "../../src/store/run-event-log.js";
import { SqliteRunEventLog } from "../../src/store/sqlite-run-event-log.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { SqliteToolSettingsStore } from "../../src/store/sqlite-tool-settings-store.js";
import type { Store } from "../../src/store/store.js";
import type { ToolSettingsStore } from "../../src/store/tool-settings-store.js";
import { createDatabase, dropDatabase, postgresMissing, postgresUrl } from "../helpers/postgres.js";
import { runMemorySearchContract } from "./memory-search.contract.js";
import { runEventLogContract } from "./run-event-log.contract.js";
import { runStoreContract } from "./run-store.contract.js";
import { toolSettingsStoreContract } from "./tool-settings-store.contract.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-stores-"));
const opened: Array<{ close(): Promise<void> }> = [];
const databases: string[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
  rmSync(dir, { recursive: true, force: true });
  for (const url of databases) await dropDatabase(url);
});
let files = 0;

/** A fresh SQLite file for each test, closed when the file's tests end. */
function sqliteFile(): SqliteStore {
  const store = new SqliteStore(path.join(dir, `s${++files}.db`), { synchronous: "normal" });
  opened.push(store);
  return store;
}

/** A fresh PostgreSQL database for each test, on the cluster the test setup started; dropped when the file's tests end. */
async function postgresDatabase(): Promise<PostgresDatabase> {
  const url = await createDatabase();
  databases.push(url);
  const database = await PostgresDatabase.open(url);
  opened.push(database);
  return database;
}

interface StoreRow {
  name: string;
  runStore(): Store | Promise<Store>;
  eventLog(): RunEventLog | Promise<RunEventLog>;
  toolSettings(): ToolSettingsStore | Promise<ToolSettingsStore>;
  /** Its full-text engine, in the contract's name. */
  search: string;
  /** Why this store cannot be tested here; its contracts are then reported as skipped. */
  skip?: string;
}

const STORES: StoreRow[] = [
  {
    name: "in memory",
    runStore: () => new InMemoryStore(),
    eventLog: () => new InMemoryRunEventLog(),
    toolSettings: () => new InMemoryToolSettingsStore(),
    search: "word match",
  },
  {
    name: "SQLite file",
    runStore: sqliteFile,
    eventLog: () => new SqliteRunEventLog(sqliteFile().db),
    toolSettings: () => new SqliteToolSettingsStore(sqliteFile().db),
    search: "FTS5",
  },
  {
    name: "PostgreSQL",
    runStore: async () => (await postgresDatabase()).store,
    eventLog: async () => (await postgresDatabase()).events,
    toolSettings: async () => (await postgresDatabase()).toolSettings,
    search: "tsvector",
    // Skipped only where no PostgreSQL server could be started (test/global-setup.ts says why); CI always has one.
    ...(postgresUrl ? {} : { skip: `no PostgreSQL: ${postgresMissing}` }),
  },
];

for (const store of STORES) {
  runStoreContract(store.name, store.runStore, store.skip);
  runMemorySearchContract(`${store.name} (${store.search})`, store.runStore, store.skip);
  runEventLogContract(store.name, store.eventLog, store.skip);
  toolSettingsStoreContract(store.name, store.toolSettings, store.skip);
}
