import { randomUUID } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { openSqlite } from "../../test/helpers/open-sqlite.js";
import { createDatabase, dropDatabase, postgresUrl } from "../../test/helpers/postgres.js";
import { waitFor } from "../../test/helpers/wait-for.js";
import { keepNativeAlive } from "./keep-native-alive.js";
import { PostgresDatabase } from "./postgres-database.js";
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

const databases: string[] = [];
afterAll(async () => {
  for (const url of databases) await dropDatabase(url);
});

/** A PostgreSQL database for this test (several handles on it stand for several instances). */
async function postgresDatabase(): Promise<string> {
  const url = await createDatabase();
  databases.push(url);
  return url;
}

async function openPostgres(url: string, options: { leaseMs?: number } = {}) {
  const database = await PostgresDatabase.open(url, options);
  cleanups.push(() => database.close());
  return database;
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

const newRun = (id: string, owner: string) => ({
  id,
  conversationId: `c_${id}`,
  model: "replay",
  options: {},
  limits: {},
  owner,
  messages: [],
});

describe.skipIf(!postgresUrl)("PostgresRunEventLog (several instances on one database)", () => {
  it("numbers one run's events without a gap or a clash when two instances append at once, and wakes the other", async () => {
    const url = await postgresDatabase();
    const a = await openPostgres(url);
    const b = await openPostgres(url);
    await a.store.createRun(newRun("run_a", "a:1"));
    const woken: number[] = [];
    b.events.watch("run_a", () => woken.push(Date.now()));
    // B's LISTEN answered before the appends: a notification sent before it is not heard (readers poll for that).
    await b.notifications.listened();
    const appends = Array.from({ length: 60 }, (_, i) =>
      (i % 2 === 0 ? a : b).events.append("run_a", {
        type: i % 2 === 0 ? "text-delta" : "approval-decided",
        i,
      }),
    );
    const seqs = await Promise.all(appends);
    expect([...seqs].sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    // Each instance's own events keep the order it appended them in.
    const listed = await b.events.list("run_a");
    const order = (mod: number) =>
      listed.filter((r) => (r.event.i as number) % 2 === mod).map((r) => r.event.i);
    expect(order(0)).toEqual(Array.from({ length: 30 }, (_, i) => i * 2));
    expect(order(1)).toEqual(Array.from({ length: 30 }, (_, i) => i * 2 + 1));
    await expect.poll(() => woken.length).toBeGreaterThan(0);
  });

  it("logs nothing more from a driver whose run was taken over (fenced), while decisions still go in", async () => {
    const url = await postgresDatabase();
    const a = await openPostgres(url, { leaseMs: 200 });
    const b = await openPostgres(url, { leaseMs: 200 });
    await a.store.createRun(newRun("run_a", "a:1"));
    expect(await a.events.append("run_a", { type: "run-started" })).toBe(1);
    // A stops renewing (as a paused process would); B takes the run over once the lease expired.
    a.leases.stop();
    expect((await waitFor("A's lease to expire", () => b.leases.claimNext("b:1")))?.id).toBe("run_a");
    await expect(a.events.append("run_a", { type: "text-delta", text: "stale" })).rejects.toThrow(
      /taken over/,
    );
    expect(await b.events.append("run_a", { type: "run-resumed" })).toBe(2);
    expect(await a.events.append("run_a", { type: "approval-decided" })).toBe(3);
    expect((await b.events.list("run_a")).map((r) => r.event.type)).toEqual([
      "run-started",
      "run-resumed",
      "approval-decided",
    ]);
  });

  it("writes a batch sent again (its connection dropped, committed or not) once, answering with the same seqs", async () => {
    const url = await postgresDatabase();
    const a = await openPostgres(url);
    const append = (keys: string[]) =>
      a.connection.query(
        "SELECT idx, seq FROM toolbridge.append_run_events($1, $2::uuid[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::json[])",
        [
          "toolbridge_events",
          keys,
          keys.map(() => "run_a"),
          keys.map(() => null),
          keys.map(() => "text-delta"),
          keys.map(() => 1),
          keys.map((k) => JSON.stringify({ type: "text-delta", k })),
        ],
      );
    const keys = [randomUUID(), randomUUID()];
    const first = await append(keys);
    expect(await append(keys)).toEqual(first);
    expect(first.map((r) => Number(r.seq))).toEqual([1, 2]);
    expect((await a.events.list("run_a")).map((r) => r.seq)).toEqual([1, 2]);
    expect(await a.events.append("run_a", { type: "run-finished" })).toBe(3);
  });
});
