import { createRequire } from "node:module";
import type pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  adminQuery,
  createDatabase,
  dropDatabase,
  postgresUrl,
  withDatabase,
} from "../../test/helpers/postgres.js";
import { startPostgresCluster } from "../../test/helpers/postgres-cluster.js";
import { waitFor } from "../../test/helpers/wait-for.js";
import { PostgresDatabase } from "./postgres-database.js";
import { POSTGRES_SCHEMA_VERSION } from "./postgres-migrations.js";
import { RunFencedError, StoreConflictError } from "./store.js";
import { StoreOpenError } from "./store-open-error.js";

// What every store does is in test/store/run-store.contract.ts; these are what several instances on one PostgreSQL
// need: migrations that take turns, leases with fencing, decisions on any instance, surviving a server restart.
const databases: string[] = [];
const opened: PostgresDatabase[] = [];
afterEach(async () => {
  while (opened.length) await opened.pop()?.close();
});
afterAll(async () => {
  for (const url of databases) await dropDatabase(url);
});

async function database(): Promise<string> {
  const url = await createDatabase();
  databases.push(url);
  return url;
}

async function instance(url: string, options: { leaseMs?: number; schema?: string } = {}) {
  const db = await PostgresDatabase.open(url, options);
  opened.push(db);
  return db;
}

const newRun = (id: string, owner = "a:1") => ({
  id,
  conversationId: `c_${id}`,
  model: "replay",
  options: {},
  limits: {},
  owner,
  messages: [{ role: "user" as const, content: "hello" }],
});

const pendingCall = (id: string, position: number) => ({
  id,
  position,
  name: "t",
  arguments: { n: position },
  state: "pending" as const,
  approval: {
    policy: "ask" as const,
    decision: "pending" as const,
    decidedBy: null,
    decidedAt: null,
    reason: null,
    originalArguments: null,
  },
});

const turn = (runId: string, calls: ReturnType<typeof pendingCall>[]) => ({
  runId,
  conversationId: `c_${runId}`,
  step: 1,
  message: { role: "assistant" as const, content: "", toolCalls: calls.map((c) => ({ ...c })) },
  finishReason: "tool-calls",
  calls,
  parseErrors: [],
  audit: [],
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const { Client } = createRequire(import.meta.url)("pg") as typeof pg;

/** A session of its own on the database, to hold a transaction open while the store works. */
async function session(url: string): Promise<pg.Client> {
  const client = new Client({ connectionString: url });
  await client.connect();
  return client;
}

/** Whether a statement of the store's (matching `like`) is waiting for a lock held by another session. */
async function waitingForLock(url: string, like: string): Promise<boolean> {
  const client = await session(url);
  try {
    const { rows } = await client.query(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE $1 AND pid <> pg_backend_pid()",
      [like],
    );
    return (rows[0] as { n: number }).n > 0;
  } finally {
    await client.end();
  }
}

/** Settles with `promise`, or rejects naming `what` when it has not settled within `ms` (for a wait that would hang). */
function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: still waiting after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe.skipIf(!postgresUrl)("PostgresDatabase", () => {
  it("migrates once when instances start at once, into its own schema, and refuses a newer schema", async () => {
    const url = await database();
    // An application's own table of the same name, in the database toolbridge is pointed at.
    await adminQuery("CREATE TABLE public.runs (id int PRIMARY KEY, note text)", url);
    await adminQuery("INSERT INTO public.runs VALUES (1, 'the app''s')", url);
    const started = await Promise.all(Array.from({ length: 4 }, () => instance(url)));
    expect(started.map((db) => db.schemaVersion)).toEqual([1, 1, 1, 1].map(() => POSTGRES_SCHEMA_VERSION));
    await started[0]?.store.createRun(newRun("r1"));
    expect(await started[1]?.store.getRun("r1")).toMatchObject({ id: "r1", status: "running" });
    const rows = await started[0]!.connection.query(
      "SELECT (SELECT count(*) FROM toolbridge.schema_migrations) AS applied, (SELECT note FROM public.runs) AS app",
    );
    expect(rows[0]).toEqual({ applied: POSTGRES_SCHEMA_VERSION, app: "the app's" });

    await adminQuery(
      `INSERT INTO toolbridge.schema_migrations (version, description) VALUES (${POSTGRES_SCHEMA_VERSION + 1}, 'future')`,
      url,
    );
    await expect(PostgresDatabase.open(url)).rejects.toThrow(/newer than this toolbridge understands/);
  });

  it("names the database without its password when the server cannot be reached", async () => {
    const error = await PostgresDatabase.open("postgres://app:s3cret@127.0.0.1:1/app").catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreOpenError);
    expect((error as Error).message).toContain("postgres://app:***@127.0.0.1:1/app");
    expect((error as Error).message).not.toContain("s3cret");
  });
});

describe.skipIf(!postgresUrl)("PostgresStore leases", () => {
  it("keeps a run while the heartbeat renews it; once it stops, another instance takes it over and the old owner writes nothing", async () => {
    const url = await database();
    // Long enough that a busy machine does not stall the heartbeat (every third of it) past the lease.
    const a = await instance(url, { leaseMs: 1500 });
    const b = await instance(url, { leaseMs: 1500 });
    await a.store.createRun(newRun("r1", "a:1"));
    // Two lease lengths with A's heartbeat running: B finds nothing to take.
    await sleep(3000);
    expect(await b.leases.claimNext("b:1")).toBeUndefined();
    expect(await b.store.claimRun("r1", "b:1", ["running"], "a:1")).toBe(false);

    // A stops renewing, as a paused process or one cut off from the database would.
    a.leases.stop();
    const taken = await waitFor("A's lease to expire", () => b.leases.claimNext("b:1"));
    expect(taken).toMatchObject({ id: "r1", status: "running", owner: "b:1" });

    // Every state write of the stale owner is refused, and none of it is kept.
    const writes = [
      () => a.store.recordTurn(turn("r1", [pendingCall("x", 0)])),
      () => a.store.updateRun("r1", { status: "finished", stopReason: "final-answer", owner: null }),
      () => a.store.claimToolCalls("r1", ["x"]),
    ];
    for (const write of writes) await expect(write()).rejects.toBeInstanceOf(RunFencedError);
    expect(await b.store.listSteps("r1")).toEqual([]);
    expect(await b.store.getRun("r1")).toMatchObject({ status: "running", owner: "b:1" });
    // B, the owner now, writes as usual.
    await b.store.recordTurn(turn("r1", [pendingCall("x", 0)]));
    expect(await b.store.listToolCalls("r1")).toHaveLength(1);
  });

  it("tells the owner when its heartbeat finds the run taken over", async () => {
    const url = await database();
    const a = await instance(url, { leaseMs: 300 });
    await a.store.createRun(newRun("r1", "a:1"));
    const lost: string[] = [];
    a.leases.onLost((runId) => lost.push(runId));
    // Taken over while A still beats (as a claim after an expiry A did not notice does it: owner and epoch move on).
    // Done in SQL, at once: an expiry by hand would race A's heartbeat, which renews every 100 ms.
    await adminQuery("UPDATE toolbridge.runs SET owner = 'b:1', epoch = epoch + 1", url);
    await expect.poll(() => lost, { timeout: 2000 }).toEqual(["r1"]);
    await expect(a.store.updateRun("r1", { activeMs: 1 })).rejects.toThrow(/taken over by another instance/);
  });

  it("hands every claimable run to exactly one of many concurrent claimers", async () => {
    const url = await database();
    const a = await instance(url, { leaseMs: 60_000 });
    const b = await instance(url, { leaseMs: 60_000 });
    for (let i = 0; i < 50; i++) {
      await a.store.createRun(newRun(`r${String(i).padStart(2, "0")}`));
      await a.store.updateRun(`r${String(i).padStart(2, "0")}`, { status: "paused", owner: null });
    }
    // 45 paused with nothing pending (resumable), 5 left running by an owner whose lease expired.
    await adminQuery(
      "UPDATE toolbridge.runs SET resumable = (id >= 'r05'), status = CASE WHEN id < 'r05' THEN 'running' ELSE 'paused' END, owner = CASE WHEN id < 'r05' THEN 'dead:1' END, lease_until = CASE WHEN id < 'r05' THEN now() - interval '1 second' END",
      url,
    );
    const claimers = Array.from({ length: 20 }, async (_, i) => {
      const leases = (i % 2 === 0 ? a : b).leases;
      const got: string[] = [];
      for (;;) {
        const run = await leases.claimNext(`claimer:${i}`);
        if (!run) return got;
        got.push(run.id);
      }
    });
    const claimed = (await Promise.all(claimers)).flat();
    expect(claimed).toHaveLength(50);
    expect(new Set(claimed).size).toBe(50);
    expect(
      (await a.store.listRuns({ status: "running", limit: 100 })).every((r) =>
        r.owner?.startsWith("claimer:"),
      ),
    ).toBe(true);
  });
});

describe.skipIf(!postgresUrl)("PostgresRunEventLog fencing", () => {
  it("appends the driver's events while a state transaction of the run holds its row", async () => {
    const url = await database();
    const a = await instance(url);
    await a.store.createRun(newRun("r1", "a:1"));
    // As recordTurn or completeStep do from their first statement to COMMIT: the run's row locked.
    const state = await session(url);
    try {
      await state.query("BEGIN");
      await state.query("UPDATE toolbridge.runs SET updated_at = now() WHERE id = 'r1'");
      // The epoch check used to take the row FOR SHARE: every event waited for the run's transactions (and, batched,
      // every other run's events with it).
      expect(await within(a.events.append("r1", { type: "step-started" }), 5000, "the append")).toBe(1);
      await state.query("COMMIT");
    } finally {
      await state.end();
    }
    expect((await a.events.list("r1")).map((r) => r.seq)).toEqual([1]);
  });

  it("reads many runs' events at once, in batches, each as asked", async () => {
    const url = await database();
    const a = await instance(url);
    for (const id of ["r1", "r2", "r3"]) await a.store.createRun(newRun(id, "a:1"));
    for (let i = 1; i <= 3; i++)
      for (const id of ["r1", "r2", "r3"])
        await a.events.append(id, { type: "text-delta", text: `${id}.${i}` });
    // More at once than the reader has connections: the later ones go in one statement together.
    const asked: Array<[string, number]> = [
      ["r1", 0],
      ["r2", 1],
      ["r3", 0],
      ["r1", 2],
      ["r2", 1],
      ["r3", 3],
      ["nobody", 0],
      ["r1", 0],
      ["r3", 0],
    ];
    const read = await Promise.all(asked.map(([id, after]) => a.events.list(id, after)));
    expect(read.map((records) => records.map((r) => `${r.runId}:${r.seq}:${r.event.text}`))).toEqual([
      ["r1:1:r1.1", "r1:2:r1.2", "r1:3:r1.3"],
      ["r2:2:r2.2", "r2:3:r2.3"],
      ["r3:1:r3.1", "r3:2:r3.2", "r3:3:r3.3"],
      ["r1:3:r1.3"],
      ["r2:2:r2.2", "r2:3:r2.3"],
      [],
      [],
      ["r1:1:r1.1", "r1:2:r1.2", "r1:3:r1.3"],
      ["r3:1:r3.1", "r3:2:r3.2", "r3:3:r3.3"],
    ]);
    // Asked twice in one batch (the first two asks go alone, the rest together), read once, but each asker has
    // events of its own to keep or change.
    expect(read[8]?.[0]).toEqual(read[2]?.[0]);
    expect(read[8]?.[0]?.event).not.toBe(read[2]?.[0]?.event);
    expect((await a.events.list("r2", 0, 2)).map((r) => r.seq)).toEqual([1, 2]);
  });

  it("orders appends with takeovers: an append waits for a claim in flight and is then refused; a claim waits for an append in flight", async () => {
    const url = await database();
    const a = await instance(url);
    await a.store.createRun(newRun("r1", "a:1"));

    // A takeover in flight (B's claim, uncommitted) while A, unaware, appends with the epoch it holds.
    const claim = await session(url);
    try {
      await claim.query("BEGIN");
      await claim.query("UPDATE toolbridge.runs SET owner = 'b:1', epoch = epoch + 1 WHERE id = 'r1'");
      const appending = a.events.append("r1", { type: "text-delta", text: "stale" });
      const settled = appending.then(
        () => "written",
        () => "refused",
      );
      // Read before the claim commits, the old epoch would still match: the append must wait for the claim.
      await waitFor("the append to wait for the claim", () => waitingForLock(url, "%append_run_events%"));
      await claim.query("COMMIT");
      await expect(appending).rejects.toBeInstanceOf(RunFencedError);
      expect(await settled).toBe("refused");
    } finally {
      await claim.end();
    }
    expect(await a.events.list("r1")).toEqual([]);

    // The new owner's append in flight (uncommitted): a further takeover waits until it has committed.
    const [{ epoch } = { epoch: 0 }] = (await a.connection.query(
      "SELECT epoch FROM toolbridge.runs WHERE id = 'r1'",
    )) as Array<{
      epoch: number;
    }>;
    const append = await session(url);
    const taker = await session(url);
    try {
      await append.query("BEGIN");
      await append.query(
        "SELECT * FROM toolbridge.append_run_events('toolbridge_events', ARRAY[gen_random_uuid()], ARRAY['r1'], ARRAY[$1::bigint], ARRAY['step-started'], ARRAY[0::bigint], ARRAY['{\"type\":\"step-started\"}'::json])",
        [epoch],
      );
      const taking = taker.query(
        "UPDATE toolbridge.runs SET owner = 'c:1', epoch = epoch + 1 WHERE id = 'r1'",
      );
      await waitFor("the takeover to wait for the append", () =>
        waitingForLock(url, "UPDATE toolbridge.runs SET owner = 'c:1'%"),
      );
      await append.query("COMMIT");
      expect((await taking).rowCount).toBe(1);
    } finally {
      await append.end();
      await taker.end();
    }
    expect((await a.events.list("r1")).map((r) => [r.seq, r.event.type])).toEqual([[1, "step-started"]]);
  });
});

describe.skipIf(!postgresUrl)("PostgresStore decisions on any instance", () => {
  it("lets one of two concurrent decisions win, tells the other who decided, and makes the run resumable with a notification", async () => {
    const url = await database();
    const a = await instance(url);
    const b = await instance(url);
    await a.store.createRun(newRun("r1"));
    await a.store.recordTurn(turn("r1", [pendingCall("x", 0), pendingCall("y", 1)]));
    await a.store.updateRun("r1", { status: "paused", stopReason: "awaiting-approval", owner: null });
    let claimable = 0;
    a.leases.onClaimable(() => claimable++);
    // A's first onClaimable sends its LISTEN now: a notification committed before the server has it is not heard (the
    // claim loop polls for that), so this check of the notification path waits for it — under load it came too late.
    await a.notifications.listened();

    await b.store.decideToolCalls("r1", [{ callId: "x", decision: "approved", by: "ann" }]);
    // One call still pending: not resumable yet.
    expect(await a.leases.claimNext("a:1")).toBeUndefined();

    const results = await Promise.allSettled([
      a.store.decideToolCalls("r1", [{ callId: "y", decision: "approved", by: "bob" }]),
      b.store.decideToolCalls("r1", [{ callId: "y", decision: "approved", by: "eve" }]),
    ]);
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(won).toHaveLength(1);
    expect(lost[0]?.reason).toBeInstanceOf(StoreConflictError);
    expect(String(lost[0]?.reason.message)).toMatch(/it was approved by (bob|eve) at 20/);
    await expect.poll(() => claimable).toBeGreaterThan(0);
    expect((await a.store.getRun("r1"))?.owner).toBeNull();
    expect(await b.leases.claimNext("b:1")).toMatchObject({ id: "r1", owner: "b:1", status: "running" });
    expect(await a.leases.claimNext("a:1")).toBeUndefined();
  });

  it("a run whose last decision came while it was on its way to the pause is resumable once it pauses", async () => {
    const url = await database();
    const a = await instance(url);
    const b = await instance(url);
    await a.store.createRun(newRun("r1"));
    await a.store.recordTurn(turn("r1", [pendingCall("x", 0)]));
    // Decided on B while A still drives the run (running): nothing to resume yet.
    await b.store.decideToolCalls("r1", [{ callId: "x", decision: "denied", by: "ann" }]);
    expect(await b.leases.claimNext("b:1")).toBeUndefined();
    await a.store.updateRun("r1", { status: "paused", stopReason: "awaiting-approval", owner: null });
    expect(await b.leases.claimNext("b:1")).toMatchObject({ id: "r1", owner: "b:1" });
  });
});

describe.skipIf(!postgresUrl)("PostgresDatabase across a restart of the server", () => {
  it("carries on: writes wait for the server and go through, the LISTEN connection comes back", {
    timeout: 60_000,
  }, async () => {
    const cluster = await startPostgresCluster();
    try {
      const url = withDatabase(cluster.url, "postgres");
      const a = await instance(url, { leaseMs: 10_000 });
      const b = await instance(url, { leaseMs: 10_000 });
      await a.store.createRun(newRun("r1"));
      const heard: string[] = [];
      b.events.watch("r1", () => heard.push("event"));
      // B's first watch sends its LISTEN now: a notification committed before the server has it is not heard (the
      // log's readers poll for that), so this check of the notification path waits for it.
      await b.notifications.listened();
      expect(await a.events.append("r1", { type: "run-started" })).toBe(1);
      await expect.poll(() => heard.length).toBe(1);

      cluster.restart();
      // Every pooled connection was closed by the restart: the next writes reconnect (retried inside the pool).
      expect(await a.events.append("r1", { type: "step-finished" })).toBe(2);
      await a.store.recordTurn(turn("r1", [pendingCall("x", 0)]));
      expect(await b.store.listToolCalls("r1")).toHaveLength(1);
      await expect.poll(() => b.notifications.connects, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
      // Listening again: B hears A's next event.
      const before = heard.length;
      expect(await a.events.append("r1", { type: "run-finished" })).toBe(3);
      await expect.poll(() => heard.length, { timeout: 5000 }).toBeGreaterThan(before);
      expect((await b.events.list("r1")).map((r) => r.seq)).toEqual([1, 2, 3]);
      // The lease survived: A is still the owner.
      await a.store.updateRun("r1", { activeMs: 5 });

      // Down for a second: what is written meanwhile waits, and is there once the server is back.
      cluster.stop();
      const restarting = sleep(1000).then(() => cluster.start());
      const waiting = Promise.all([
        a.events.append("r1", { type: "text-delta", text: "late" }),
        a.store.updateRun("r1", { activeMs: 6 }),
      ]);
      await restarting;
      expect((await waiting)[0]).toBe(4);
      expect(await b.store.getRun("r1")).toMatchObject({ activeMs: 6, owner: "a:1" });
    } finally {
      while (opened.length) await opened.pop()?.close();
      cluster.destroy();
    }
  });
});

describe.skipIf(!postgresUrl)("PostgresStore leases: whose runs are claimed", () => {
  it("claims only runs whose options hold the key it asks for (the server's, not the CLI's)", async () => {
    const url = await database();
    const a = await instance(url);
    await a.store.createRun({ ...newRun("cli"), options: { cli: { model: "replay:x" } } });
    await a.store.createRun({ ...newRun("api"), options: { server: { model: "default" } } });
    for (const id of ["cli", "api"]) await a.store.updateRun(id, { status: "paused", owner: null });
    expect((await a.leases.claimNext("b:1", "server"))?.id).toBe("api");
    expect(await a.leases.claimNext("b:1", "server")).toBeUndefined();
    expect((await a.leases.claimNext("b:1"))?.id).toBe("cli");
  });
});

describe.skipIf(!postgresUrl)("PostgresConversationEraser", () => {
  it("deletes a conversation's messages (and their search entries), runs, steps, calls and approvals, keeping the audit log", async () => {
    const url = await database();
    const db = await instance(url);
    await db.store.createRun(newRun("r1"));
    await db.store.recordTurn(turn("r1", [pendingCall("x", 0)]));
    await db.store.decideToolCalls("r1", [{ callId: "x", decision: "approved", by: "ann" }]);
    await db.store.createRun({
      ...newRun("r2"),
      conversationId: "c_other",
      messages: [{ role: "user", content: "hello" }],
    });
    await db.events.append("r1", { type: "run-started" });
    // While r1 is running (or paused) its conversation is not deleted: nothing goes.
    await expect(db.conversations.erase("c_r1")).rejects.toThrow(/r1 \(running\)/);
    expect(await db.conversations.unfinishedRuns("c_r1")).toEqual([
      { id: "r1", status: "running", owner: expect.any(String) },
    ]);
    await db.store.updateRun("r1", { status: "paused", owner: null });
    await expect(db.conversations.erase("c_r1")).rejects.toThrow(/r1 \(paused\)/);
    expect(await db.store.getRun("r1")).toBeDefined();
    expect(await db.store.claimRun("r1", "a:1", ["paused"], null)).toBe(true);
    await db.store.updateRun("r1", { status: "finished", stopReason: "final-answer", owner: null });
    expect((await db.store.searchMemory("hello")).map((h) => h.conversationId).sort()).toEqual([
      "c_other",
      "c_r1",
    ]);

    expect(await db.conversations.erase("c_r1")).toEqual(["r1"]);
    await db.events.deleteRuns(["r1"]);
    expect(await db.store.getRun("r1")).toBeUndefined();
    expect(await db.store.listMessages("c_r1")).toEqual([]);
    expect(await db.store.listToolCalls("r1")).toEqual([]);
    expect(await db.events.list("r1")).toEqual([]);
    expect((await db.store.searchMemory("hello")).map((h) => h.conversationId)).toEqual(["c_other"]);
    expect((await db.store.listAudit("r1")).map((e) => e.action)).toEqual(["approve"]);
    expect(await db.conversations.erase("c_r1")).toEqual([]);
  });

  it("titles conversations: a rename shows in their titles; an unknown one is not renamed", async () => {
    const db = await instance(await database());
    await db.store.createRun(newRun("r1"));
    expect(await db.conversations.titles(["c_r1", "c_none"])).toEqual(new Map([["c_r1", null]]));
    expect(await db.conversations.rename("c_r1", "Old logs")).toBe(true);
    expect(await db.conversations.rename("c_none", "x")).toBe(false);
    expect(await db.conversations.titles(["c_r1"])).toEqual(new Map([["c_r1", "Old logs"]]));
  });
});
