import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase, dropDatabase, postgresUrl } from "../../test/helpers/postgres.js";
import { PostgresDatabase } from "./postgres-database.js";
import { SqliteStore } from "./sqlite-store.js";
import { SqliteToolSettingsStore } from "./sqlite-tool-settings-store.js";
import type { ToolSettingsStore } from "./tool-settings-store.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-tool-settings-"));
const opened: Array<{ close(): Promise<void> }> = [];
const databases: string[] = [];
afterAll(async () => {
  for (const store of opened) await store.close();
  rmSync(dir, { recursive: true, force: true });
  for (const url of databases) await dropDatabase(url);
});

async function postgresOn(url: string) {
  const database = await PostgresDatabase.open(url);
  opened.push(database);
  return database;
}

function sqliteOn(file: string): ToolSettingsStore {
  const store = new SqliteStore(file, { synchronous: "normal" });
  opened.push(store);
  return new SqliteToolSettingsStore(store.db);
}

describe("SqliteToolSettingsStore", () => {
  it("keeps settings across a reopen of the database file (a restart of serve)", async () => {
    const file = path.join(dir, "reopen.db");
    const first = new SqliteStore(file, { synchronous: "normal" });
    await new SqliteToolSettingsStore(first.db).put({
      name: "fs.write_file",
      enabled: false,
      policy: "never",
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
    await first.close();
    expect(await sqliteOn(file).list()).toEqual([
      { name: "fs.write_file", enabled: false, policy: "never", updatedAt: "2026-01-01T00:00:00.000Z" },
    ]);
  });

  it("refuses a policy the table does not know, storing nothing", async () => {
    const store = sqliteOn(path.join(dir, "bad.db"));
    await expect(
      store.put({ name: "t", policy: "sometimes" as never, updatedAt: "2026-01-01T00:00:00.000Z" }),
    ).rejects.toThrow(/CHECK constraint/);
    expect(await store.list()).toEqual([]);
  });
});

describe.skipIf(!postgresUrl)("PostgresToolSettingsStore", () => {
  it("tells the other instances of a change at once, and refuses a policy the table does not know", async () => {
    const url = await createDatabase();
    databases.push(url);
    const a = await postgresOn(url);
    const b = await postgresOn(url);
    let heard = 0;
    b.toolSettings.watch(() => heard++);
    // B's first watch sends its LISTEN now: a change committed before the server has it is not heard (the service's
    // once-a-second re-read covers that), so this check of the notification path waits for it. Without the wait it
    // failed once in CI under load.
    await b.notifications.listened();
    await a.toolSettings.put({
      name: "fs.write_file",
      enabled: false,
      updatedAt: "2026-01-01T00:00:00.000Z",
    });
    await expect.poll(() => heard).toBe(1);
    expect(await b.toolSettings.get("fs.write_file")).toMatchObject({ enabled: false });
    await expect(
      a.toolSettings.put({ name: "t", policy: "sometimes" as never, updatedAt: "2026-01-01T00:00:00.000Z" }),
    ).rejects.toThrow(/check constraint/);
    expect(await b.toolSettings.get("t")).toBeUndefined();
  });
});
