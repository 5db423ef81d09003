import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createDatabase, dropDatabase, postgresUrl } from "../../test/helpers/postgres.js";
import { InMemoryToolSettingsStore } from "./in-memory-tool-settings-store.js";
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
let files = 0;

function sqliteOn(file: string): ToolSettingsStore {
  const store = new SqliteStore(file, { synchronous: "normal" });
  opened.push(store);
  return new SqliteToolSettingsStore(store.db);
}

/** One contract, every implementation (as the run stores do). */
const implementations: Array<[string, () => ToolSettingsStore | Promise<ToolSettingsStore>]> = [
  ["InMemoryToolSettingsStore", () => new InMemoryToolSettingsStore()],
  ["SqliteToolSettingsStore", () => sqliteOn(path.join(dir, `s${++files}.db`))],
];
// Skipped only where no PostgreSQL server could be started (test/global-setup.ts); CI always has one.
if (postgresUrl)
  implementations.push([
    "PostgresToolSettingsStore",
    async () => {
      const url = await createDatabase();
      databases.push(url);
      return (await postgresOn(url)).toolSettings;
    },
  ]);

for (const [label, make] of implementations) {
  describe(`ToolSettingsStore contract: ${label}`, () => {
    it("keeps each field as given and lists settings sorted by name", async () => {
      const store = await make();
      await store.put({ name: "zeta", enabled: false, updatedAt: "2026-01-01T00:00:00.000Z" });
      await store.put({ name: "alpha", policy: "never", updatedAt: "2026-01-02T00:00:00.000Z" });
      await store.put({ name: "mid", enabled: true, policy: "ask", updatedAt: "2026-01-03T00:00:00.000Z" });
      expect(await store.list()).toEqual([
        { name: "alpha", policy: "never", updatedAt: "2026-01-02T00:00:00.000Z" },
        { name: "mid", enabled: true, policy: "ask", updatedAt: "2026-01-03T00:00:00.000Z" },
        { name: "zeta", enabled: false, updatedAt: "2026-01-01T00:00:00.000Z" },
      ]);
      expect(await store.get("alpha")).toEqual({
        name: "alpha",
        policy: "never",
        updatedAt: "2026-01-02T00:00:00.000Z",
      });
      expect(await store.get("nothing")).toBeUndefined();
    });

    it("replaces a setting as a whole, and forgets one with nothing left in it", async () => {
      const store = await make();
      await store.put({ name: "t", enabled: false, policy: "ask", updatedAt: "2026-01-01T00:00:00.000Z" });
      await store.put({ name: "t", policy: "always", updatedAt: "2026-01-02T00:00:00.000Z" });
      expect(await store.get("t")).toEqual({
        name: "t",
        policy: "always",
        updatedAt: "2026-01-02T00:00:00.000Z",
      });
      await store.put({ name: "t", updatedAt: "2026-01-03T00:00:00.000Z" });
      expect(await store.get("t")).toBeUndefined();
      expect(await store.list()).toEqual([]);
    });

    it("hands out copies: changing a returned setting changes nothing stored", async () => {
      const store = await make();
      await store.put({ name: "t", enabled: false, updatedAt: "2026-01-01T00:00:00.000Z" });
      const got = await store.get("t");
      if (got) got.enabled = true;
      expect((await store.get("t"))?.enabled).toBe(false);
    });
  });
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
