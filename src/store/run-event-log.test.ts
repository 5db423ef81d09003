import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../test/helpers/open-sqlite.js";
import { keepNativeAlive } from "./keep-native-alive.js";
import { SqliteRunEventLog } from "./sqlite-run-event-log.js";
import { SqliteStore } from "./sqlite-store.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function tempDb() {
  const dir = await mkdtemp(path.join(tmpdir(), "toolbridge-events-"));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return path.join(dir, "db.sqlite");
}

async function openSqliteLog(file?: string) {
  const store = new SqliteStore(file ?? (await tempDb()));
  cleanups.push(() => store.close());
  return { log: new SqliteRunEventLog(store.db), store };
}

describe("SqliteRunEventLog", () => {
  it("continues a run's numbering after the database is reopened", async () => {
    const file = await tempDb();
    const first = await openSqliteLog(file);
    await first.log.append("run_a", { type: "run-started" });
    await first.log.append("run_a", { type: "run-paused" });
    await first.store.close();
    const second = await openSqliteLog(file);
    expect(await second.log.append("run_a", { type: "run-resumed" })).toBe(3);
    expect((await second.log.list("run_a")).map((r) => r.event.type)).toEqual([
      "run-started",
      "run-paused",
      "run-resumed",
    ]);
  });

  it("numbers one run's events without a clash when two connections (two processes) append to it", async () => {
    const file = await tempDb();
    const a = await openSqliteLog(file);
    const b = await openSqliteLog(file);
    expect(await a.log.append("run_a", { type: "run-paused" })).toBe(1);
    expect(await b.log.append("run_a", { type: "approval-decided" })).toBe(2);
    expect(await a.log.append("run_a", { type: "run-resumed" })).toBe(3);
    expect((await b.log.list("run_a")).map((r) => [r.seq, r.event.type])).toEqual([
      [1, "run-paused"],
      [2, "approval-decided"],
      [3, "run-resumed"],
    ]);
  });

  it("makes the deltas appended in one tick visible to another connection together, after that tick", async () => {
    const file = await tempDb();
    const { log } = await openSqliteLog(file);
    const reader = openSqlite(file, { readonly: true });
    const count = reader.prepare("SELECT COUNT(*) AS n FROM run_events WHERE run_id = 'run_a'");
    const appends = Array.from({ length: 200 }, (_, i) =>
      log.append("run_a", { type: "text-delta", text: `${i}` }),
    );
    expect((count.get() as { n: number }).n).toBe(0);
    await Promise.all(appends);
    expect((count.get() as { n: number }).n).toBe(200);
  });

  it("leaves the store's own transactions at synchronous=FULL after committing its events", async () => {
    const { log, store } = await openSqliteLog();
    const sync = keepNativeAlive(store.db.prepare("PRAGMA synchronous")).pluck();
    const checkpoint = keepNativeAlive(store.db.prepare("PRAGMA wal_autocheckpoint")).pluck();
    expect([sync.get(), checkpoint.get()]).toEqual([2, 1000]);
    await log.append("run_a", { type: "run-started" });
    expect([sync.get(), checkpoint.get()]).toEqual([2, 1000]);
  });
});
