import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../test/helpers/open-sqlite.js";
import { defaultDbPath } from "./default-db-path.js";
import { SCHEMA_VERSION } from "./migrations.js";
import { SqliteStore, StoreOpenError } from "./sqlite-store.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-store-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const newRun = (id: string) => ({
  id,
  conversationId: `c_${id}`,
  model: "replay",
  options: { cli: { model: "replay:x" } },
  limits: { maxSteps: 3 },
  owner: "host:1",
  messages: [{ role: "user" as const, content: "hello" }],
});

// What every store does is in test/store/run-store.contract.ts; these are SQLite's own concerns.
describe("SqliteStore", () => {
  it("creates its folder, uses WAL, migrates once and keeps data across reopen", async () => {
    const file = path.join(dir, "nested", "deeper", "tb.db");
    const store = new SqliteStore(file);
    expect(store.db.prepare("PRAGMA journal_mode").pluck().get()).toBe("wal");
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    await store.createRun(newRun("r1"));
    await store.close();
    const again = new SqliteStore(file);
    expect((await again.getRun("r1"))?.options).toEqual({ cli: { model: "replay:x" } });
    expect(await again.listMessages("c_r1")).toEqual([{ role: "user", content: "hello" }]);
    await again.close();
  });

  it("a resumed run is running without a stop reason, in the row itself (not awaiting-approval)", async () => {
    const file = path.join(dir, "claim-run.db");
    const store = new SqliteStore(file);
    await store.createRun(newRun("r1"));
    await store.updateRun("r1", { status: "paused", stopReason: "awaiting-approval", owner: null });
    expect(await store.claimRun("r1", "host:2", ["paused"], null)).toBe(true);
    // Killed right here: what another process reads must be consistent.
    await store.close();
    const raw = openSqlite(file, { readonly: true });
    expect(raw.prepare("SELECT status, stop_reason, owner FROM runs WHERE id = 'r1'").get()).toEqual({
      status: "running",
      stop_reason: null,
      owner: "host:2",
    });
    raw.close();
    // A row an older toolbridge left inconsistent reads consistently.
    const old = openSqlite(file);
    old.prepare("UPDATE runs SET stop_reason = 'awaiting-approval' WHERE id = 'r1'").run();
    old.close();
    const reopened = new SqliteStore(file);
    expect(await reopened.getRun("r1")).toMatchObject({ status: "running", stopReason: null });
    await reopened.close();
  });

  it("refuses a database from a newer schema instead of guessing", () => {
    const file = path.join(dir, "future.db");
    const raw = openSqlite(file);
    raw.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    expect(() => new SqliteStore(file)).toThrow(StoreOpenError);
  });

  it("claims a tool call for execution at most once, also across two connections", async () => {
    const file = path.join(dir, "claim.db");
    const a = new SqliteStore(file);
    const b = new SqliteStore(file);
    await a.createRun(newRun("r1"));
    await a.recordTurn({
      runId: "r1",
      conversationId: "c_r1",
      step: 1,
      message: { role: "assistant", content: "", toolCalls: [{ id: "x", name: "t", arguments: {} }] },
      finishReason: "tool-calls",
      calls: [{ id: "x", position: 0, name: "t", arguments: {}, state: "approved" }],
      parseErrors: [],
      audit: [],
    });
    const claims = await Promise.all([
      a.claimToolCalls("r1", ["x"]),
      b.claimToolCalls("r1", ["x"]),
      a.claimToolCalls("r1", ["x"]),
    ]);
    expect(claims.flat()).toEqual(["x"]);
    await a.close();
    await b.close();
  });

  it("puts the database in the platform's data directory", () => {
    expect(defaultDbPath({ XDG_DATA_HOME: "/xdg" }, "linux", "/home/u")).toBe(
      "/xdg/toolbridge/toolbridge.db",
    );
    expect(defaultDbPath({}, "linux", "/home/u")).toBe("/home/u/.local/share/toolbridge/toolbridge.db");
    expect(defaultDbPath({ XDG_DATA_HOME: "relative" }, "linux", "/home/u")).toBe(
      "/home/u/.local/share/toolbridge/toolbridge.db",
    );
    expect(defaultDbPath({}, "darwin", "/Users/u")).toBe(
      "/Users/u/Library/Application Support/toolbridge/toolbridge.db",
    );
    expect(defaultDbPath({ LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "win32", "C:\\Users\\u")).toBe(
      "C:\\Users\\u\\AppData\\Local\\toolbridge\\toolbridge.db",
    );
  });
});
