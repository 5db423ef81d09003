import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DecisionError, RunStateError } from "../../src/agent/agent-errors.js";
import { type ApprovalDecision, createAgent } from "../../src/agent/create-agent.js";
import { createReplayModel, type ReplayTurn } from "../../src/models/replay-model.js";
import type { ApprovalPolicy } from "../../src/tools/approval-policy.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { agentWith, runToEnd, texts } from "./helpers.js";

describe("approvals", () => {
  it("runs the ungated calls of a step at once and pauses for the gated one", async () => {
    const { agent, executed } = agentWith([
      {
        calls: [
          { name: "add", arguments: { a: 1, b: 2 } },
          { name: "delete_file", arguments: { path: "/data/old.log" } },
          { name: "sleep", arguments: { ms: 1, label: "x" } },
        ],
      },
      { text: "done" },
    ]);
    const { view, events } = await runToEnd(agent);
    expect(view.status).toBe("paused");
    expect(view.stopReason).toBe("awaiting-approval");
    expect(view.pending).toEqual([
      { callId: "call_1_2", name: "delete_file", arguments: { path: "/data/old.log" } },
    ]);
    expect(executed.map((e) => e.name).sort()).toEqual(["add", "sleep"]);
    expect(texts(view)).toEqual(["3", null, "slept x"]);
    expect(events.some((e) => e.type === "approval-requested")).toBe(true);

    await expect(agent.resume(view.runId).result).rejects.toThrow(RunStateError);
    const decided = await agent.approve(view.runId, "call_1_2", { by: "alice" });
    expect(decided).toEqual({ pending: [], ready: true });
    const final = await agent.resume(view.runId).result;
    expect(final).toMatchObject({ status: "finished", answer: "done" });
    expect(executed.map((e) => e.name).sort()).toEqual(["add", "delete_file", "sleep"]);
    expect(final.steps[0]?.calls[1]?.approval).toMatchObject({
      decision: "approved",
      by: "alice",
      policy: "ask",
    });
  });

  it("applies approve, deny and edit in one batch; no approved call is dropped", async () => {
    const { agent, executed } = agentWith([
      {
        calls: [
          { name: "delete_file", arguments: { path: "a" } },
          { name: "delete_file", arguments: { path: "b" } },
          { name: "delete_file", arguments: { path: "c" } },
          { name: "send_email", arguments: { to: "x@y.z", body: "hi" } },
        ],
      },
      { text: "done" },
    ]);
    const { view } = await runToEnd(agent);
    expect(view.pending.map((p) => p.callId)).toEqual(["call_1_1", "call_1_2", "call_1_3", "call_1_4"]);
    const result = await agent.decide(
      view.runId,
      [
        { callId: "call_1_2", decision: "deny", reason: "b is still needed" },
        { callId: "call_1_1", decision: "approve" },
        { callId: "call_1_3", decision: "approve", arguments: { path: "c.bak" } },
        { callId: "call_1_4", decision: "approve" },
      ],
      { by: "bob" },
    );
    expect(result.ready).toBe(true);
    const final = await agent.resume(view.runId).result;
    expect(final.status).toBe("finished");
    expect(executed.map((e) => e.args)).toEqual([
      { path: "a" },
      { path: "c.bak" },
      { to: "x@y.z", body: "hi" },
    ]);
    const [a, b, c, d] = final.steps[0]!.calls;
    expect(texts(final).slice(0, 4)).toEqual([
      "deleted a",
      "The user denied this call to delete_file: b is still needed. It was not run.",
      "deleted c.bak",
      "sent to x@y.z",
    ]);
    expect(a?.approval?.decision).toBe("approved");
    expect(b?.approval).toMatchObject({ decision: "denied", reason: "b is still needed", by: "bob" });
    expect(c?.arguments).toEqual({ path: "c.bak" });
    expect(c?.approval?.originalArguments).toEqual({ path: "c" });
    expect(d?.approval?.decision).toBe("approved");
    const audit = await agent.store.listAudit(view.runId);
    expect(audit.map((e) => [e.actor, e.action, e.callId])).toEqual([
      ["bob", "deny", "call_1_2"],
      ["bob", "approve", "call_1_1"],
      ["bob", "approve-edited", "call_1_3"],
      ["bob", "approve", "call_1_4"],
    ]);
  });

  it("decisions may arrive one by one; the run is ready only when all are in", async () => {
    const { agent } = agentWith([
      {
        calls: [
          { name: "delete_file", arguments: { path: "a" } },
          { name: "delete_file", arguments: { path: "b" } },
        ],
      },
      { text: "done" },
    ]);
    const { view } = await runToEnd(agent);
    expect((await agent.deny(view.runId, "call_1_1")).ready).toBe(false);
    await expect(agent.resume(view.runId).result).rejects.toThrow(/call_1_2/);
    expect((await agent.approve(view.runId, "call_1_2")).ready).toBe(true);
    expect((await agent.resume(view.runId).result).status).toBe("finished");
  });

  it("rejects a whole batch with an invalid edit, a repeated or an unknown call, and records nothing", async () => {
    const { agent } = agentWith([
      {
        calls: [
          { name: "delete_file", arguments: { path: "a" } },
          { name: "delete_file", arguments: { path: "b" } },
        ],
      },
      { text: "done" },
    ]);
    const { view } = await runToEnd(agent);
    const bad: ApprovalDecision[][] = [
      [
        { callId: "call_1_1", decision: "approve" },
        { callId: "call_1_2", decision: "approve", arguments: { path: 7 } },
      ],
      [
        { callId: "call_1_1", decision: "approve" },
        { callId: "call_1_1", decision: "deny" },
      ],
      [
        { callId: "call_1_1", decision: "approve" },
        { callId: "call_9_9", decision: "approve" },
      ],
    ];
    for (const batch of bad) await expect(agent.decide(view.runId, batch)).rejects.toThrow(DecisionError);
    expect((await agent.getRun(view.runId)).pending).toHaveLength(2);
    expect(await agent.store.listAudit(view.runId)).toEqual([]);
    await agent.approve(view.runId, "call_1_1");
    await expect(agent.approve(view.runId, "call_1_1")).rejects.toThrow(
      /was already decided: it was approved by/,
    );
  });

  it("policy never refuses without asking; policy always runs a gated tool without asking but keeps a record", async () => {
    const { agent, executed } = agentWith(
      [
        {
          calls: [
            { name: "delete_file", arguments: { path: "a" } },
            { name: "send_email", arguments: { to: "t", body: "b" } },
          ],
        },
        { text: "ok" },
      ],
      { approval: { delete_file: "never", send_email: "always" } },
    );
    const { view } = await runToEnd(agent);
    expect(view.status).toBe("finished");
    expect(executed.map((e) => e.name)).toEqual(["send_email"]);
    expect(texts(view)[0]).toMatch(/not allowed in this run/);
    expect(view.steps[0]?.calls[1]?.approval).toMatchObject({
      decision: "approved",
      by: "policy",
      policy: "always",
    });
  });
});

describe("approval property", () => {
  it("never executes an unapproved call and never executes a call twice", async () => {
    const policies: ApprovalPolicy[] = ["always", "never", "ask"];
    const toolNames = ["t0", "t1", "t2", "t3"];
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          policy: fc.tuple(...toolNames.map(() => fc.constantFrom(...policies))),
          steps: fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 4 }), {
            minLength: 1,
            maxLength: 3,
          }),
          decisions: fc.array(
            fc.record({ approve: fc.boolean(), batch: fc.boolean(), resumeEarly: fc.boolean() }),
            {
              minLength: 12,
              maxLength: 12,
            },
          ),
          order: fc.array(fc.nat(), { minLength: 12, maxLength: 12 }),
        }),
        async ({ policy, steps, decisions, order }) => {
          const executions: string[] = [];
          const registry = new ToolRegistry();
          for (const name of toolNames) {
            registry.register(
              defineTool({
                name,
                inputSchema: z.object({}),
                annotations: { readOnlyHint: true },
                handler: (_args, ctx) => {
                  executions.push(ctx.callId);
                  return "ok";
                },
              }),
            );
          }
          const turns: ReplayTurn[] = steps.map((calls) => ({
            calls: calls.map((t) => ({ name: `t${t}`, arguments: {} })),
          }));
          turns.push({ text: "end" });
          const approval = Object.fromEntries(toolNames.map((n, i) => [n, policy[i] as ApprovalPolicy]));
          const agent = createAgent({
            model: createReplayModel(turns),
            tools: registry,
            approval,
            limits: { maxConsecutiveFailures: 99 },
          });
          const approved = new Set<string>();
          let view = await agent.run("go").result;
          let d = 0;
          while (view.status === "paused") {
            const pending = [...view.pending];
            // Decide in a random order, sometimes in batches, sometimes trying to resume too early.
            while (pending.length > 0) {
              const pick = (order[d % order.length] ?? 0) % pending.length;
              const choice = decisions[d % decisions.length]!;
              d += 1;
              const take = choice.batch ? pending.splice(0, pending.length) : pending.splice(pick, 1);
              const batch: ApprovalDecision[] = take.map((p) =>
                choice.approve
                  ? { callId: p.callId, decision: "approve" }
                  : { callId: p.callId, decision: "deny" },
              );
              if (choice.approve) for (const p of take) approved.add(p.callId);
              await agent.decide(view.runId, batch);
              if (choice.resumeEarly && pending.length > 0) {
                await expect(agent.resume(view.runId).result).rejects.toThrow(RunStateError);
              }
            }
            view = await agent.resume(view.runId).result;
          }
          expect(view.status).toBe("finished");
          expect(new Set(executions).size).toBe(executions.length);
          for (const step of view.steps) {
            for (const call of step.calls) {
              const p = approval[call.name];
              const shouldRun = p === "always" || (p === "ask" && approved.has(call.id));
              expect(executions.includes(call.id)).toBe(shouldRun);
            }
          }
          await agent.close();
        },
      ),
      { numRuns: 60 },
    );
  });
});
