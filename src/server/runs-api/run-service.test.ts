import { afterAll, afterEach, describe, expect, it } from "vitest";
import { createTestTools } from "../../../test/agent/helpers.js";
import { createDatabase, dropDatabase, postgresUrl } from "../../../test/helpers/postgres.js";
import { createReplayModel, type ReplayTurn } from "../../models/replay-model.js";
import { InMemoryRunEventLog } from "../../store/in-memory-run-event-log.js";
import { InMemoryStore } from "../../store/in-memory-store.js";
import { PostgresDatabase } from "../../store/postgres-database.js";
import type { ApprovalPolicy } from "../../tools/approval-policy.js";
import { ToolExecutor } from "../../tools/tool-executor.js";
import { toHttpError } from "../to-http-error.js";
import { RunService } from "./run-service.js";

const services: RunService[] = [];
const databases: PostgresDatabase[] = [];
const urls: string[] = [];
afterEach(async () => {
  while (services.length) await services.pop()?.close();
  while (databases.length) await databases.pop()?.close();
});
afterAll(async () => {
  for (const url of urls) await dropDatabase(url);
});

describe("RunService", () => {
  it("evaluates the approval policy per call, so a change applies to the next run", async () => {
    const turns: ReplayTurn[] = [{ calls: [{ name: "add", arguments: { a: 1, b: 2 } }] }, { text: "3" }];
    const policy: { add: ApprovalPolicy } = { add: "always" };
    const tools = createTestTools();
    const runs = new RunService({
      models: { names: () => ["replay"], defaultName: "replay", get: async () => createReplayModel(turns) },
      store: new InMemoryStore(),
      events: new InMemoryRunEventLog(),
      executor: new ToolExecutor(tools.registry, { redact: false }),
      approval: (call) => (call.name === "add" ? policy.add : undefined),
    });
    services.push(runs);
    const first = await runs.start({ message: "add" });
    await runs.settled(first.runId);
    expect((await runs.getRun(first.runId)).status).toBe("finished");
    policy.add = "ask";
    const second = await runs.start({ message: "add" });
    await runs.settled(second.runId);
    expect(await runs.getRun(second.runId)).toMatchObject({ status: "paused", pending: [{ name: "add" }] });
    expect(tools.executed).toHaveLength(1);
  });

  it("refuses a toolChoice naming a tool that does not exist (400) and starts nothing", async () => {
    const tools = createTestTools();
    const runs = new RunService({
      models: {
        names: () => ["replay"],
        defaultName: "replay",
        get: async () => createReplayModel([{ text: "x" }]),
      },
      store: new InMemoryStore(),
      events: new InMemoryRunEventLog(),
      executor: new ToolExecutor(tools.registry, { redact: false }),
    });
    services.push(runs);
    await expect(runs.start({ message: "x", toolChoice: { name: "nope" } })).rejects.toMatchObject({
      status: 400,
      message: expect.stringMatching(/toolChoice names "nope", which is not a tool here/),
    });
    expect(await runs.store.listRuns()).toEqual([]);
  });
});

describe.skipIf(!postgresUrl)("RunService on PostgreSQL (two instances in one process)", () => {
  it("answers the second of two simultaneous decisions on two instances with 409 naming who decided", async () => {
    const url = await createDatabase();
    urls.push(url);
    const turns: ReplayTurn[] = [
      { calls: [{ name: "delete_file", arguments: { path: "/tmp/x" } }] },
      { text: "Deleted." },
    ];
    const tools = createTestTools();
    const instance = async () => {
      const database = await PostgresDatabase.open(url);
      databases.push(database);
      const service = new RunService({
        models: { names: () => ["replay"], defaultName: "replay", get: async () => createReplayModel(turns) },
        store: database.store,
        events: database.events,
        executor: new ToolExecutor(tools.registry, { redact: false }),
      });
      services.push(service);
      await service.recover();
      return service;
    };
    const [a, b] = [await instance(), await instance()];
    const { runId } = await a.start({ message: "delete /tmp/x" });
    await a.settled(runId);
    const [pending] = await b.pending(runId);
    expect(pending).toMatchObject({ name: "delete_file" });
    const decision = [{ callId: pending?.callId as string, decision: "approve" as const }];
    const results = await Promise.allSettled([
      a.decide(runId, decision, "ann"),
      b.decide(runId, decision, "bob"),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
    expect(lost?.reason).toMatchObject({ reason: "already-decided" });
    expect(toHttpError(lost?.reason)).toMatchObject({
      status: 409,
      message: expect.stringMatching(/was already decided: it was approved by (ann|bob) at 20/),
    });
    await expect.poll(async () => (await b.getRun(runId)).status, { timeout: 10_000 }).toBe("finished");
    expect(tools.executed.filter((e) => e.name === "delete_file")).toHaveLength(1);
  });

  it("a cancel on B not carried out in time answers cancelling; the request stays, and A, which drives the run, ends it", async () => {
    const url = await createDatabase();
    urls.push(url);
    const turns: ReplayTurn[] = [
      { calls: [{ name: "sleep", arguments: { ms: 20_000, label: "long" } }] },
      { text: "Never reached." },
    ];
    const tools = createTestTools();
    const instance = async (cancelWaitMs?: number) => {
      const database = await PostgresDatabase.open(url);
      databases.push(database);
      const service = new RunService({
        models: { names: () => ["replay"], defaultName: "replay", get: async () => createReplayModel(turns) },
        store: database.store,
        events: database.events,
        executor: new ToolExecutor(tools.registry, { redact: false }),
        ...(cancelWaitMs === undefined ? {} : { cancelWaitMs }),
      });
      services.push(service);
      await service.recover();
      return service;
    };
    const [a, b] = [await instance(), await instance(0)];
    const { runId } = await a.start({ message: "sleep" });
    await expect.poll(() => tools.executed.some((e) => e.name === "sleep"), { timeout: 10_000 }).toBe(true);
    // B waits for nothing: the request is recorded and B says so.
    expect(await b.cancel(runId, "ops", "wrong prompt")).toEqual({ runId, status: "cancelling" });
    expect((await b.store.getRun(runId))?.cancelRequest).toMatchObject({ by: "ops", reason: "wrong prompt" });
    await a.settled(runId);
    expect(await b.getRun(runId)).toMatchObject({ status: "stopped", stopReason: "aborted" });
    expect(tools.executed.filter((e) => e.name === "sleep")).toHaveLength(1);
    await expect(b.cancel(runId)).rejects.toMatchObject({ status: 409 });
  });
});
