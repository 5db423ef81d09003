/**
 * Two real `toolbridge serve` processes (the built bin) on one PostgreSQL database, as behind a load balancer: a run
 * paused on one is decided on the other, events stream from both in order, an owner killed or paused mid-tool is
 * taken over (the interrupted call reported, never re-run, the stale owner fenced), a restart of PostgreSQL is ridden
 * out, tool settings follow. Skipped only where no PostgreSQL server could be started (CI always has one).
 */
import type { ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type pg from "pg";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createDatabase, dropDatabase, postgresMissing, postgresUrl } from "../helpers/postgres.js";
import { type PostgresCluster, startPostgresCluster } from "../helpers/postgres-cluster.js";
import { startServe } from "../helpers/serve-process.js";
import { waitFor } from "../helpers/wait-for.js";
import { getJson, postJson, readSse, type SseEvent, TestSocket } from "./runs/helpers.js";

const TOOLS = fileURLToPath(new URL("./fixtures/instance-tools.mjs", import.meta.url));
const { Client } = createRequire(import.meta.url)("pg") as typeof pg;

const dir = mkdtempSync(path.join(tmpdir(), "tb-instances-"));
const children = new Set<ChildProcess>();
const databases: string[] = [];
afterEach(async () => {
  for (const child of children) {
    child.kill("SIGCONT");
    child.kill("SIGKILL");
  }
  children.clear();
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const url of databases) await dropDatabase(url);
});

interface Instance {
  child: ChildProcess;
  url: string;
  pid: number;
  /** What it printed so far, stdout and stderr. */
  output: () => string;
}

let scenario = 0;
/** A scenario's folder: its replay turns and its executions log. */
function scenarioFiles(turns: object[]) {
  const folder = path.join(dir, `s${++scenario}`);
  rmSync(folder, { recursive: true, force: true });
  const file = (name: string) => path.join(folder, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(file("turns.jsonl"), `${turns.map((t) => JSON.stringify(t)).join("\n")}\n`);
  return {
    turns: file("turns.jsonl"),
    executions: file("executions.log"),
    /** Each handler execution the tools module recorded. */
    ran: (): Array<{
      tool: string;
      runId: string;
      callId: string;
      phase: string;
      pid: number;
      at: number;
    }> =>
      existsSync(file("executions.log"))
        ? readFileSync(file("executions.log"), "utf8")
            .split("\n")
            .filter(Boolean)
            .map((line) => JSON.parse(line))
        : [],
  };
}

/** `toolbridge serve --db <url>` on the scenario's replay model and tools; resolves once it printed where it listens. */
async function serve(
  db: string,
  files: { turns: string; executions: string },
  leaseMs: number,
): Promise<Instance> {
  const started = await startServe(["--db", db, "--tools-module", TOOLS], {
    cwd: dir,
    env: {
      TOOLBRIDGE_MODEL: `replay:${files.turns}`,
      TOOLBRIDGE_RUN_LEASE_MS: String(leaseMs),
      TB_EXECUTIONS: files.executions,
    },
  });
  children.add(started.child);
  return { child: started.child, url: started.url, pid: started.child.pid as number, output: started.output };
}

/** The one wait helper, with room for two processes sharing a database on a loaded machine. */
const until = <T>(what: string, probe: () => T | Promise<T>, timeoutMs = 20_000) =>
  waitFor(what, probe, timeoutMs, 50);

async function sql<T = Record<string, unknown>>(
  db: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: db });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Every event of a run's SSE stream from the start, until run-finished. */
function collect(url: string, runId: string, into: SseEvent[]) {
  return readSse(`${url}/api/runs/${runId}/events`, (event) => {
    into.push(event);
  });
}

const ids = (events: SseEvent[]) => events.map((e) => e.id);
const oneToN = (events: SseEvent[]) => Array.from({ length: events.length }, (_, i) => i + 1);

describe.skipIf(!postgresUrl)(
  `toolbridge serve: two instances on one PostgreSQL${postgresUrl ? "" : ` — ${postgresMissing}`}`,
  { timeout: 120_000 },
  () => {
    it("pauses on A, is listed and decided on B, streams every event in order on both, and a second decision is a 409", async () => {
      const db = await createDatabase();
      databases.push(db);
      const files = scenarioFiles([
        { text: "I will delete it.", calls: [{ name: "delete_file", arguments: { path: "/tmp/old.log" } }] },
        { text: "Deleted /tmp/old.log." },
      ]);
      const [a, b] = await Promise.all([serve(db, files, 5000), serve(db, files, 5000)]);
      const { runId } = (await postJson(`${a.url}/api/runs`, { message: "delete /tmp/old.log" })).body as {
        runId: string;
      };
      const onA: SseEvent[] = [];
      const onB: SseEvent[] = [];
      const streams = [collect(a.url, runId, onA), collect(b.url, runId, onB)];

      // B sees the run A paused, with its pending call (from the database, not from A's memory).
      const paused = await until("B to list the paused run", async () => {
        const list = (await getJson(`${b.url}/api/runs?status=paused`)).body as {
          data: Array<{ runId: string }>;
        };
        return list.data.find((r) => r.runId === runId);
      });
      expect(paused).toBeDefined();
      const view = (await getJson(`${b.url}/api/runs/${runId}`)).body as {
        pending: Array<{ callId: string }>;
      };
      expect(view.pending).toMatchObject([{ name: "delete_file" }]);
      expect(files.ran()).toEqual([]);
      const callId = view.pending[0]?.callId as string;

      const decided = await postJson(`${b.url}/api/runs/${runId}/decisions`, {
        decisions: [{ callId, decision: "approve" }],
      });
      expect(decided.status).toBe(200);
      await Promise.all(streams);

      expect(onA.at(-1)?.data).toMatchObject({
        type: "run-finished",
        status: "finished",
        answer: "Deleted /tmp/old.log.",
      });
      expect(ids(onA)).toEqual(oneToN(onA));
      expect(onB.map((e) => [e.id, e.data])).toEqual(onA.map((e) => [e.id, e.data]));
      expect(onA.map((e) => e.event)).toEqual(
        expect.arrayContaining(["run-paused", "approval-decided", "run-resumed", "tool-result"]),
      );
      expect(files.ran().filter((r) => r.runId === runId)).toHaveLength(1);

      const again = await postJson(`${a.url}/api/runs/${runId}/decisions`, {
        decisions: [{ callId, decision: "approve" }],
      });
      expect(again.status).toBe(409);
      expect(JSON.stringify(again.body)).toMatch(/already decided: it was approved by api at 20/);
    });

    it("takes a run over after its owner is killed mid-tool: the call is reported interrupted, not run again, and the run finishes", async () => {
      const db = await createDatabase();
      databases.push(db);
      const files = scenarioFiles([
        { calls: [{ name: "slow_step", arguments: { ms: 5000 } }] },
        { text: "Finished after the interruption." },
      ]);
      const [a, b] = await Promise.all([serve(db, files, 1500), serve(db, files, 1500)]);
      const { runId } = (await postJson(`${a.url}/api/runs`, { message: "slow" })).body as { runId: string };
      await until("the slow tool to start on A", () => files.ran().find((r) => r.phase === "start"));
      a.child.kill("SIGKILL");

      const finished = await until("B to finish the run", async () => {
        const run = (await getJson(`${b.url}/api/runs/${runId}`)).body as { status: string };
        return run.status === "finished" ? run : undefined;
      });
      expect(finished).toMatchObject({ answer: "Finished after the interruption." });
      const [call] = await sql<{ state: string }>(
        db,
        "SELECT state FROM toolbridge.tool_calls WHERE run_id = $1",
        [runId],
      );
      expect(call?.state).toBe("interrupted");
      // Started once, by A; never by B.
      expect(
        files
          .ran()
          .filter((r) => r.phase === "start")
          .map((r) => r.pid),
      ).toEqual([a.pid]);
      const events: SseEvent[] = [];
      await collect(b.url, runId, events);
      expect(ids(events)).toEqual(oneToN(events));
      const result = events.find((e) => e.event === "tool-result");
      expect(result?.data).toMatchObject({ status: "interrupted" });
      expect(events.at(-1)?.data).toMatchObject({ type: "run-finished", status: "finished" });
    });

    it("fences a stale owner: paused (SIGSTOP) past its lease, then continued, it writes nothing after the takeover", async () => {
      const db = await createDatabase();
      databases.push(db);
      const files = scenarioFiles([
        { calls: [{ name: "slow_step", arguments: { ms: 3000 } }] },
        { text: "Done on B." },
      ]);
      // 2 s: long enough that B's heartbeat, on a busy machine, keeps its lease once it took the run over.
      const [a, b] = await Promise.all([serve(db, files, 2000), serve(db, files, 2000)]);
      const { runId } = (await postJson(`${a.url}/api/runs`, { message: "slow" })).body as { runId: string };
      await until("the slow tool to start on A", () => files.ran().find((r) => r.phase === "start"));
      a.child.kill("SIGSTOP");
      await until(
        "B to finish the run",
        async () =>
          ((await getJson(`${b.url}/api/runs/${runId}`)).body as { status: string }).status === "finished",
      );
      const snapshot = async () => ({
        run: await sql(
          db,
          "SELECT status, owner, epoch, step_count, answer FROM toolbridge.runs WHERE id = $1",
          [runId],
        ),
        calls: await sql(
          db,
          "SELECT id, state, outcome, result FROM toolbridge.tool_calls WHERE run_id = $1",
          [runId],
        ),
        steps: await sql(db, "SELECT step, finished FROM toolbridge.steps WHERE run_id = $1", [runId]),
        events: await sql(db, "SELECT seq, data FROM toolbridge.run_events WHERE run_id = $1 ORDER BY seq", [
          runId,
        ]),
        messages: await sql(db, "SELECT id FROM toolbridge.messages ORDER BY id"),
      });
      const before = await snapshot();
      expect(before.run[0]).toMatchObject({ status: "finished", answer: "Done on B." });

      a.child.kill("SIGCONT");
      // A wakes up with its slow tool about to return and its heartbeat overdue; give it time to try everything.
      await until(`A's tool to end (A: ${a.child.exitCode ?? "alive"})`, () =>
        files.ran().find((r) => r.phase === "end" && r.pid === a.pid),
      ).catch((error: Error) => {
        throw new Error(
          `${error.message}; A's output: ${a.output()}; exit ${a.child.exitCode} ${a.child.signalCode}`,
        );
      });
      await new Promise((resolve) => setTimeout(resolve, 2000));
      expect(await snapshot()).toEqual(before);
      expect(files.ran().filter((r) => r.phase === "start")).toHaveLength(1);
      // A is alive and serving: it only gave the run up.
      expect((await getJson(`${a.url}/api/runs/${runId}`)).body).toMatchObject({ status: "finished" });
    });

    it("cancels on B a run A drives mid-tool: B answers once the run has ended aborted, both streams end, the call is not run again, a second cancel is a 409", async () => {
      const db = await createDatabase();
      databases.push(db);
      const files = scenarioFiles([
        { calls: [{ name: "slow_step", arguments: { ms: 20_000 } }] },
        { text: "Never reached." },
      ]);
      const [a, b] = await Promise.all([serve(db, files, 5000), serve(db, files, 5000)]);
      const { runId } = (await postJson(`${a.url}/api/runs`, { message: "slow" })).body as { runId: string };
      const onA: SseEvent[] = [];
      const onB: SseEvent[] = [];
      const streams = [collect(a.url, runId, onA), collect(b.url, runId, onB)];
      await until("the slow tool to start on A", () => files.ran().find((r) => r.phase === "start"));

      const cancelled = await postJson(`${b.url}/api/runs/${runId}/cancel`, {});
      expect(cancelled).toMatchObject({ status: 200, body: { runId, status: "stopped" } });
      // Answered once the run has ended: every instance reads it stopped at once.
      for (const instance of [a, b])
        expect((await getJson(`${instance.url}/api/runs/${runId}`)).body).toMatchObject({
          status: "stopped",
          stopReason: "aborted",
        });
      await Promise.all(streams);
      for (const events of [onA, onB]) {
        expect(events.at(-1)?.data).toMatchObject({
          type: "run-finished",
          status: "stopped",
          stopReason: "aborted",
        });
        expect(ids(events)).toEqual(oneToN(events));
        expect(events.find((e) => e.event === "tool-result")?.data).toMatchObject({ status: "cancelled" });
      }
      expect(onB.map((e) => [e.id, e.data])).toEqual(onA.map((e) => [e.id, e.data]));
      // Started once, by A; nobody went on with the run.
      expect(
        files
          .ran()
          .filter((r) => r.phase === "start")
          .map((r) => r.pid),
      ).toEqual([a.pid]);
      const audit = await sql<{ actor: string; action: string }>(
        db,
        "SELECT actor, action FROM toolbridge.audit_log WHERE run_id = $1 ORDER BY id",
        [runId],
      );
      expect(audit).toEqual([{ actor: "api", action: "cancel-requested" }]);
      const again = await postJson(`${a.url}/api/runs/${runId}/cancel`, {});
      expect(again.status).toBe(409);
      expect(JSON.stringify(again.body)).toMatch(/already stopped \(aborted\)/);
    });

    it("a cancel outlives the driver it was meant for: A stalls (SIGSTOP) mid-tool, B ends the run once A's lease expired (the call reported interrupted), and A, continued, writes nothing", async () => {
      const db = await createDatabase();
      databases.push(db);
      const files = scenarioFiles([
        { calls: [{ name: "slow_step", arguments: { ms: 3000 } }] },
        { text: "Never reached." },
      ]);
      const [a, b] = await Promise.all([serve(db, files, 2000), serve(db, files, 2000)]);
      const { runId } = (await postJson(`${a.url}/api/runs`, { message: "slow" })).body as { runId: string };
      await until("the slow tool to start on A", () => files.ran().find((r) => r.phase === "start"));
      a.child.kill("SIGSTOP");
      // A hears nothing now: B records the request, waits, and takes the run over to end it once A's lease is gone.
      const cancelled = await postJson(`${b.url}/api/runs/${runId}/cancel`, {});
      expect(cancelled).toMatchObject({ status: 200, body: { runId, status: "stopped" } });
      const [call] = await sql<{ state: string; outcome: string }>(
        db,
        "SELECT state, outcome FROM toolbridge.tool_calls WHERE run_id = $1",
        [runId],
      );
      expect(call).toEqual({ state: "interrupted", outcome: "interrupted" });
      const before = await sql(
        db,
        "SELECT seq, data FROM toolbridge.run_events WHERE run_id = $1 ORDER BY seq",
        [runId],
      );
      expect(before.at(-1)?.data).toMatchObject({
        type: "run-finished",
        status: "stopped",
        stopReason: "aborted",
      });

      a.child.kill("SIGCONT");
      await until("A's tool to end", () => files.ran().find((r) => r.phase === "end" && r.pid === a.pid));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(
        await sql(db, "SELECT seq, data FROM toolbridge.run_events WHERE run_id = $1 ORDER BY seq", [runId]),
      ).toEqual(before);
      expect((await getJson(`${a.url}/api/runs/${runId}`)).body).toMatchObject({
        status: "stopped",
        stopReason: "aborted",
      });
      expect(files.ran().filter((r) => r.phase === "start")).toHaveLength(1);
    });

    it("applies tool settings changed on one instance on the other within a second", async () => {
      const db = await createDatabase();
      databases.push(db);
      const files = scenarioFiles([{ text: "hi" }]);
      const [a, b] = await Promise.all([serve(db, files, 5000), serve(db, files, 5000)]);
      const enabled = async () =>
        ((await getJson(`${b.url}/api/tools/slow_step`)).body as { enabled: boolean }).enabled;
      expect(await enabled()).toBe(true);
      const changed = await fetch(`${a.url}/api/tools/slow_step`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ enabled: false }),
      });
      expect(changed.status).toBe(200);
      const at = Date.now();
      await until("B to see the change", async () => (await enabled()) === false, 5000);
      expect(Date.now() - at).toBeLessThan(1000);
    });
  },
);

describe.skipIf(!postgresUrl)(
  "toolbridge serve: two instances across a PostgreSQL restart",
  { timeout: 120_000 },
  () => {
    let cluster: PostgresCluster | undefined;
    afterAll(() => cluster?.destroy());

    it("carries on on both instances, and no event is lost", async () => {
      cluster = await startPostgresCluster();
      const db = cluster.url;
      const files = scenarioFiles([
        { calls: [{ name: "slow_step", arguments: { ms: 3000 } }] },
        { text: "Done after the restart." },
      ]);
      const [a, b] = await Promise.all([serve(db, files, 10_000), serve(db, files, 10_000)]);
      const { runId } = (await postJson(`${a.url}/api/runs`, { message: "slow" })).body as { runId: string };
      const onA: SseEvent[] = [];
      const onB: SseEvent[] = [];
      const streams = [collect(a.url, runId, onA), collect(b.url, runId, onB)];
      await until("the slow tool to start", () => files.ran().find((r) => r.phase === "start"));
      cluster.restart();
      await Promise.all(streams);
      const logged = await sql<{ seq: number; type: string }>(
        db,
        "SELECT seq, type FROM toolbridge.run_events WHERE run_id = $1 ORDER BY seq",
        [runId],
      );
      expect(onA.at(-1)?.data).toMatchObject({ type: "run-finished", answer: "Done after the restart." });
      expect(ids(onA)).toEqual(logged.map((e) => Number(e.seq)));
      expect(ids(onA)).toEqual(oneToN(onA));
      expect(onB.map((e) => [e.id, e.data])).toEqual(onA.map((e) => [e.id, e.data]));
      expect(files.ran().filter((r) => r.phase === "start")).toHaveLength(1);
      // Both still work: a new run started on B after the restart finishes.
      const second = (await postJson(`${b.url}/api/runs`, { message: "again" })).body as { runId: string };
      const events: SseEvent[] = [];
      await collect(a.url, second.runId, events);
      expect(events.at(-1)?.data).toMatchObject({ type: "run-finished", status: "finished" });
    });
  },
);

describe("toolbridge serve: two processes on one SQLite file", { timeout: 120_000 }, () => {
  it("cancels over /ws on B a run A drives mid-tool: answered once it ended aborted, the call not run again", async () => {
    const files = scenarioFiles([
      { calls: [{ name: "slow_step", arguments: { ms: 20_000 } }] },
      { text: "Never reached." },
    ]);
    const db = path.join(dir, `s${scenario}`, "shared.db");
    const a = await serve(db, files, 5000);
    const b = await serve(db, files, 5000);
    const { runId } = (await postJson(`${a.url}/api/runs`, { message: "slow" })).body as { runId: string };
    await until("the slow tool to start on A", () => files.ran().find((r) => r.phase === "start"));
    const socket = await TestSocket.open(`${b.url.replace("http", "ws")}/ws`);
    try {
      const reply = await socket.request(1, { type: "runs/cancel", runId });
      expect(reply).toMatchObject({ type: "result", result: { runId, status: "stopped" } });
    } finally {
      socket.close();
    }
    for (const instance of [a, b])
      expect((await getJson(`${instance.url}/api/runs/${runId}`)).body).toMatchObject({
        status: "stopped",
        stopReason: "aborted",
      });
    const events: SseEvent[] = [];
    await collect(b.url, runId, events);
    expect(events.at(-1)?.data).toMatchObject({
      type: "run-finished",
      status: "stopped",
      stopReason: "aborted",
    });
    expect(
      files
        .ran()
        .filter((r) => r.phase === "start")
        .map((r) => r.pid),
    ).toEqual([a.pid]);
  });
});
