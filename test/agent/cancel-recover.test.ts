import os from "node:os";
import { describe, expect, it, vi } from "vitest";
import { DecisionError, RunStateError } from "../../src/agent/agent-errors.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { InMemoryStore } from "../../src/store/in-memory-store.js";
import { agentWith } from "./helpers.js";

const slow = [{ calls: [{ name: "sleep", arguments: { ms: 30_000, label: "long" } }] }, { text: "done" }];
const asks = [{ calls: [{ name: "delete_file", arguments: { path: "/tmp/x" } }] }, { text: "Deleted." }];

describe("Agent.cancel", () => {
  it("stops a run driven in this process — also when asked through another agent on the same store", async () => {
    const store = new InMemoryStore();
    const { agent } = agentWith(slow, { store });
    const { agent: other } = agentWith([], { store });
    const handle = agent.run("sleep");
    await vi.waitFor(async () =>
      expect((await store.listToolCalls(handle.runId))[0]?.state).toBe("executing"),
    );
    const started = Date.now();
    expect(await other.cancel(handle.runId, { by: "alice" })).toEqual({
      runId: handle.runId,
      status: "stopped",
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await handle.result).toMatchObject({ status: "stopped", stopReason: "aborted" });
  });

  it("stops a paused run at once: its pending calls are denied by who cancelled, the end is emitted, nothing runs", async () => {
    const events: AgentEvent[] = [];
    const { agent, executed } = agentWith(asks, { onEvent: (e) => events.push(e) });
    const view = await agent.run("delete").result;
    expect(view.status).toBe("paused");
    expect(await agent.cancel(view.runId, { by: "alice", reason: "changed my mind" })).toEqual({
      runId: view.runId,
      status: "stopped",
    });
    const stopped = await agent.getRun(view.runId);
    expect(stopped).toMatchObject({ status: "stopped", stopReason: "aborted", pending: [] });
    expect(stopped.steps[0]?.calls[0]?.approval).toMatchObject({
      decision: "denied",
      by: "alice",
      reason: "changed my mind",
    });
    expect(events.slice(-2).map((e) => e.type)).toEqual(["approval-decided", "run-finished"]);
    expect(events.at(-1)).toMatchObject({ status: "stopped", stopReason: "aborted" });
    // Over: a second cancel and a late decision are refused, each with its reason.
    await expect(agent.cancel(view.runId)).rejects.toThrow(RunStateError);
    await expect(agent.cancel(view.runId)).rejects.toThrow(
      /already stopped \(aborted\); there is nothing to cancel/,
    );
    const late = agent.approve(view.runId, stopped.steps[0]?.calls[0]?.id as string);
    await expect(late).rejects.toMatchObject({ reason: "already-decided" });
    await expect(late).rejects.toThrow(DecisionError);
    expect(executed).toEqual([]);
  });

  it("refuses a run another live process drives and changes nothing", async () => {
    const { agent } = agentWith(asks);
    const view = await agent.run("delete").result;
    // PID 1 lives on every host: a process that drives the run elsewhere.
    await agent.store.updateRun(view.runId, { status: "running", owner: `${os.hostname()}:1` });
    await expect(agent.cancel(view.runId)).rejects.toThrow(/driven by process .*:1; cancel it there/);
    expect(await agent.getRun(view.runId)).toMatchObject({
      status: "running",
      pending: [{ name: "delete_file" }],
    });
  });
});

describe("Agent.recover", () => {
  it("resumes what a gone process left — a running run, a paused run decided meanwhile — and leaves a paused run that still waits", async () => {
    const store = new InMemoryStore();
    const first = agentWith(asks, { store });
    const decided = await first.agent.run("delete").result;
    const waiting = await first.agent.run("delete").result;
    await first.agent.approve(decided.runId, decided.pending[0]?.callId as string, { by: "alice" });
    const second = agentWith([{ text: "Recovered." }], { store });
    const left = await second.agent.run("x").result;
    // Its process died mid-run: still `running`, owned by a process of this host that no longer exists.
    await store.updateRun(left.runId, {
      status: "running",
      stopReason: null,
      owner: `${os.hostname()}:999999999`,
    });

    const resumed: string[] = [];
    const ids = await first.agent.recover({ resume: (run) => resumed.push(run.id) });
    expect(new Set(ids)).toEqual(new Set([decided.runId, left.runId]));
    expect(resumed).toEqual(ids);

    // By default the agent drives them itself.
    const third = agentWith(asks, { store });
    await third.agent.recover({ accept: (run) => run.id === decided.runId });
    await vi.waitFor(async () => expect((await store.getRun(decided.runId))?.status).toBe("finished"));
    expect(third.executed.map((e) => e.name)).toEqual(["delete_file"]);
    expect((await store.getRun(waiting.runId))?.status).toBe("paused");
  });
});
