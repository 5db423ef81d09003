import { afterEach, describe, expect, it } from "vitest";
import { createTestTools } from "../../../test/agent/helpers.js";
import { createReplayModel, type ReplayTurn } from "../../models/replay-model.js";
import { InMemoryRunEventLog } from "../../store/in-memory-run-event-log.js";
import { InMemoryStore } from "../../store/in-memory-store.js";
import type { ApprovalPolicy } from "../../tools/approval-policy.js";
import { ToolExecutor } from "../../tools/tool-executor.js";
import { RunService } from "./run-service.js";

const services: RunService[] = [];
afterEach(async () => {
  while (services.length) await services.pop()?.close();
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
