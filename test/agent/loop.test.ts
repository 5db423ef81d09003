import { describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import type { LanguageModel } from "../../src/core/language-model.js";
import { agentWith, createTestTools, runToEnd, texts } from "./helpers.js";

describe("agent loop with the scripted model", () => {
  it("finishes with the model's answer when no tool is needed", async () => {
    const { agent, executed } = agentWith([{ text: "Paris." }]);
    const { view, events } = await runToEnd(agent, "Capital of France?");
    expect(view).toMatchObject({
      status: "finished",
      stopReason: "final-answer",
      answer: "Paris.",
      pending: [],
    });
    expect(executed).toEqual([]);
    expect(events.map((e) => e.type)).toEqual([
      "run-started",
      "step-started",
      "text-delta",
      "step-finished",
      "run-finished",
    ]);
  });

  it("runs one call and gives the model its result", async () => {
    const seen: unknown[] = [];
    const { agent } = agentWith([
      { calls: [{ name: "add", arguments: { a: 2, b: 3 } }] },
      { text: "It is 5." },
    ]);
    const { view } = await runToEnd(agent);
    expect(view.answer).toBe("It is 5.");
    expect(view.steps[0]?.calls[0]).toMatchObject({ name: "add", arguments: { a: 2, b: 3 }, approval: null });
    expect(texts(view)).toEqual(["5"]);
    const messages = await agent.store.listMessages((await agent.store.getRun(view.runId))!.conversationId);
    seen.push(...messages.map((m) => m.role));
    expect(seen).toEqual(["user", "assistant", "tool", "assistant"]);
  });

  it("runs parallel calls concurrently and returns results in call order", async () => {
    const { agent, executed } = agentWith([
      {
        calls: [
          { name: "sleep", arguments: { ms: 120, label: "slow" } },
          { name: "sleep", arguments: { ms: 10, label: "fast" } },
          { name: "add", arguments: { a: 1, b: 1 } },
        ],
      },
      { text: "ok" },
    ]);
    const { view, events } = await runToEnd(agent);
    expect(texts(view)).toEqual(["slept slow", "slept fast", "2"]);
    expect(executed.map((e) => e.name)).toEqual(["sleep", "sleep", "add"]);
    // The fast call finished while the slow one still ran (so they overlapped); observations still follow call order.
    const finishedOrder = events
      .filter((e) => e.type === "tool-result")
      .map((e) => (e as { callId: string }).callId);
    expect(finishedOrder.indexOf("call_1_2")).toBeLessThan(finishedOrder.indexOf("call_1_1"));
    const run = await agent.store.getRun(view.runId);
    const tools = (await agent.store.listMessages(run!.conversationId)).filter((m) => m.role === "tool");
    expect(tools.map((m) => (m as { callId: string }).callId)).toEqual(["call_1_1", "call_1_2", "call_1_3"]);
  });

  it("follows a chain of calls", async () => {
    const { agent } = agentWith([
      { calls: [{ name: "add", arguments: { a: 1, b: 2 } }] },
      { calls: [{ name: "add", arguments: { a: 3, b: 4 } }] },
      { calls: [{ name: "add", arguments: { a: 3, b: 7 } }] },
      { text: "10" },
    ]);
    const { view } = await runToEnd(agent);
    expect(view.steps.length).toBe(4);
    expect(texts(view)).toEqual(["3", "7", "10"]);
    expect(view.answer).toBe("10");
  });

  it("turns an unknown tool into an error observation and lets the model repair", async () => {
    const { agent, executed } = agentWith([
      { calls: [{ name: "sum", arguments: { a: 1, b: 2 } }] },
      { calls: [{ name: "add", arguments: { a: 1, b: 2 } }] },
      { text: "3" },
    ]);
    const { view, events } = await runToEnd(agent);
    expect(view.status).toBe("finished");
    expect(texts(view)[0]).toMatch(/Unknown tool "sum".*add/s);
    expect(events.some((e) => e.type === "call-invalid")).toBe(true);
    expect(executed.map((e) => e.name)).toEqual(["add"]);
  });

  it("turns invalid or unreadable arguments into error observations and lets the model repair", async () => {
    const { agent, executed } = agentWith([
      { calls: [{ name: "add", arguments: { a: "one" } }] },
      { calls: [{ name: "add", arguments: "[1, 2]" }] },
      { calls: [{ name: "add", arguments: '{"a": 1, "b": 2}' }] },
      { text: "3" },
    ]);
    const { view } = await runToEnd(agent);
    const observations = texts(view);
    expect(observations[0]).toContain("`a` must be a number");
    expect(observations[0]).toContain("`b` is required");
    expect(observations[1]).toMatch(/Could not read the call to add/);
    expect(observations[2]).toBe("3");
    expect(view.stopReason).toBe("final-answer");
    expect(executed).toHaveLength(1);
  });

  it("stops after maxRepairs invalid steps", async () => {
    const bad = { calls: [{ name: "nope", arguments: {} }] };
    const { agent } = agentWith([bad, bad, bad, bad, { text: "never" }], {
      limits: { maxRepairs: 2, maxConsecutiveFailures: 10 },
    });
    const { view } = await runToEnd(agent);
    expect(view).toMatchObject({ status: "stopped", stopReason: "max-repairs", answer: null });
    expect(view.steps).toHaveLength(3);
  });

  it("stops after max consecutive failing steps", async () => {
    const failing = { calls: [{ name: "fail", arguments: {} }] };
    const { agent, executed } = agentWith([failing, failing, failing, failing], {
      limits: { maxConsecutiveFailures: 2 },
    });
    const { view } = await runToEnd(agent);
    expect(view.stopReason).toBe("max-consecutive-failures");
    expect(executed).toHaveLength(2);
  });

  it("max steps ends a run", async () => {
    const call = { calls: [{ name: "add", arguments: { a: 1, b: 1 } }] };
    const { agent } = agentWith([call, call, call, call, { text: "late" }], { limits: { maxSteps: 3 } });
    const { view } = await runToEnd(agent);
    expect(view).toMatchObject({ status: "stopped", stopReason: "max-steps" });
    expect(view.steps).toHaveLength(3);
  });

  it("max tool calls refuses the calls over the limit and ends the run", async () => {
    const { agent, executed } = agentWith(
      [
        {
          calls: [
            { name: "add", arguments: { a: 1, b: 1 } },
            { name: "add", arguments: { a: 2, b: 2 } },
          ],
        },
        {
          calls: [
            { name: "add", arguments: { a: 3, b: 3 } },
            { name: "add", arguments: { a: 4, b: 4 } },
          ],
        },
        { text: "late" },
      ],
      { limits: { maxToolCalls: 3 } },
    );
    const { view } = await runToEnd(agent);
    expect(view.stopReason).toBe("max-tool-calls");
    expect(executed).toHaveLength(3);
    expect(texts(view)[3]).toMatch(/limit of 3 tool calls/);
  });

  it("total time ends a run, even while a tool is running", async () => {
    const { agent } = agentWith(
      [{ calls: [{ name: "sleep", arguments: { ms: 5_000, label: "long" } }] }, { text: "late" }],
      { limits: { totalTimeoutMs: 150 } },
    );
    const started = performance.now();
    const { view } = await runToEnd(agent);
    expect(view.stopReason).toBe("timeout");
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(texts(view)[0]).toMatch(/cancelled/);
  });

  it("the per-step limit ends a run whose model hangs and ignores the signal", async () => {
    const hanging: LanguageModel = {
      id: "hang",
      async *stream() {
        await new Promise(() => {});
      },
    };
    const { registry } = createTestTools();
    const agent = createAgent({ model: hanging, tools: registry, limits: { stepTimeoutMs: 100 } });
    const { view } = await runToEnd(agent);
    expect(view.stopReason).toBe("step-timeout");
  });

  it("a model that calls tools forever always ends", async () => {
    let n = 0;
    const forever: LanguageModel = {
      id: "forever",
      async *stream() {
        n += 1;
        yield { type: "call-end", name: "add", arguments: { a: n, b: 1 } };
        yield { type: "finish", reason: "tool-calls" };
      },
    };
    const { registry } = createTestTools();
    const { view } = await runToEnd(createAgent({ model: forever, tools: registry }));
    expect(view.status).toBe("stopped");
    expect(view.stopReason).toBe("max-steps");
    expect(view.steps).toHaveLength(10);
  });

  it("a model error ends the run with a readable reason", async () => {
    const { agent } = agentWith([]);
    const { view, events } = await runToEnd(agent);
    expect(view.stopReason).toBe("model-error");
    const error = events.find((e) => e.type === "error") as { message: string } | undefined;
    expect(error?.message).toMatch(/replay script has 0 turn/);
  });

  it("aborting through the caller's signal ends the run as aborted", async () => {
    const { agent } = agentWith([
      { calls: [{ name: "sleep", arguments: { ms: 5_000, label: "x" } }] },
      { text: "late" },
    ]);
    const controller = new AbortController();
    const handle = agent.run("go", { signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    expect((await handle.result).stopReason).toBe("aborted");
  });
});

describe("safety options", () => {
  it("dry run reports what a side-effecting tool would do, without approval and without running it", async () => {
    const { agent, executed } = agentWith(
      [
        {
          calls: [
            { name: "delete_file", arguments: { path: "/tmp/x" } },
            { name: "add", arguments: { a: 1, b: 1 } },
          ],
        },
        { text: "ok" },
      ],
      { dryRun: true },
    );
    const { view } = await runToEnd(agent);
    expect(view.status).toBe("finished");
    expect(texts(view)[0]).toMatch(/\[dry run\] Nothing was changed/);
    expect(executed.map((e) => e.name)).toEqual(["add"]);
  });

  it("an allowlist hides other tools from the model and refuses calls to them", async () => {
    let offered: string[] = [];
    const { registry, executed } = createTestTools();
    const model: LanguageModel = {
      id: "m",
      async *stream(request) {
        offered = request.tools.map((t) => t.name);
        if (request.messages.some((m) => m.role === "tool")) {
          yield { type: "text-delta", text: "done" };
        } else {
          yield { type: "call-end", name: "delete_file", arguments: { path: "x" } };
        }
        yield { type: "finish", reason: "stop" };
      },
    };
    const { view } = await runToEnd(createAgent({ model, tools: registry, allow: ["add", "sl*"] }));
    expect(offered).toEqual(["add", "sleep"]);
    expect(texts(view)[0]).toMatch(/Unknown tool "delete_file"/);
    expect(executed).toEqual([]);
  });

  it("local-only mode offers no open-world tool", async () => {
    const { agent, executed } = agentWith(
      [{ calls: [{ name: "send_email", arguments: { to: "a@b.c", body: "hi" } }] }, { text: "ok" }],
      { localOnly: true },
    );
    expect(agent.tools().map((d) => d.tool.name)).not.toContain("send_email");
    const { view } = await runToEnd(agent);
    expect(texts(view)[0]).toMatch(/Unknown tool "send_email"/);
    expect(executed).toEqual([]);
  });

  it("redacts secrets and caps long observations", async () => {
    const secret = "sk-proj-abcdefghijklmnopqrstuvwxyz123456";
    const { agent } = agentWith(
      [
        {
          calls: [
            { name: "add", arguments: { a: 1, b: 1 } },
            { name: "nope", arguments: { key: secret } },
          ],
        },
        { text: "ok" },
      ],
      { redact: {}, maxObservationChars: 40 },
    );
    const { view, events } = await runToEnd(agent);
    const all = JSON.stringify(texts(view));
    expect(all).not.toContain(secret);
    expect(texts(view)[1]).toMatch(/output truncated: showing the first 40/);
    expect(JSON.stringify(events.filter((e) => e.type === "tool-result"))).not.toContain(secret);
  });
});
