/**
 * Every store keeps the same rules: one row per store, each row run through every contract (runs and calls, the
 * Runs API's event log, tool settings). A new store is a new row here.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { InMemoryRunEventLog } from "../../src/store/in-memory-run-event-log.js";
import { InMemoryStore } from "../../src/store/in-memory-store.js";
import { InMemoryToolSettingsStore } from "../../src/store/in-memory-tool-settings-store.js";
import type { RunEventLog } from "../../src/store/run-event-log.js";
import { SqliteRunEventLog } from "../../src/store/sqlite-run-event-log.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { SqliteToolSettingsStore } from "../../src/store/sqlite-tool-settings-store.js";
import type { Store } from "../../src/store/store.js";
import type { ToolSettingsStore } from "../../src/store/tool-settings-store.js";
import { runEventLogContract } from "./run-event-log.contract.js";
import { runStoreContract } from "./run-store.contract.js";
import { toolSettingsStoreContract } from "./tool-settings-store.contract.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-stores-"));
const opened: SqliteStore[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
  rmSync(dir, { recursive: true, force: true });
});
let files = 0;

/** A fresh SQLite file for each test, closed when the file's tests end. */
function sqliteFile(): SqliteStore {
  const store = new SqliteStore(path.join(dir, `s${++files}.db`), { synchronous: "normal" });
  opened.push(store);
  return store;
}

interface StoreRow {
  name: string;
  runStore(): Store | Promise<Store>;
  eventLog(): RunEventLog | Promise<RunEventLog>;
  toolSettings(): ToolSettingsStore | Promise<ToolSettingsStore>;
}

const STORES: StoreRow[] = [
  {
    name: "in memory",
    runStore: () => new InMemoryStore(),
    eventLog: () => new InMemoryRunEventLog(),
    toolSettings: () => new InMemoryToolSettingsStore(),
  },
  {
    name: "SQLite file",
    runStore: sqliteFile,
    eventLog: () => new SqliteRunEventLog(sqliteFile().db),
    toolSettings: () => new SqliteToolSettingsStore(sqliteFile().db),
  },
];

for (const store of STORES) {
  runStoreContract(store.name, store.runStore);
  runEventLogContract(store.name, store.eventLog);
  toolSettingsStoreContract(store.name, store.toolSettings);
}
