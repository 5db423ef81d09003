import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import type { AgentMessage } from "../core/agent-message.js";
import type { LanguageModel } from "../core/language-model.js";
import { createReplayModel, type ReplayTurn } from "../models/replay-model.js";
import { SqliteStore } from "../store/sqlite-store.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { createAgent } from "./create-agent.js";
import type { AgentEvent } from "./events.js";

// A run keeps its transcript and calls in memory instead of reading them back every step. These tests check that what
// it keeps is what the store holds, and that batching the writes still commits before anything is reported or run.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-session-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function tools(onRun: (name: string) => void | Promise<void> = () => {}) {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: "add",
      description: "Add two numbers.",
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      annotations: { readOnlyHint: true },
      handler: async (args) => {
        await onRun("add");
        return String(args.a + args.b);
      },
    }),
  );
  registry.register(
    defineTool({
      name: "delete_file",
      description: "Delete a file.",
      inputSchema: z.object({ path: z.string() }),
      annotations: { destructiveHint: true },
      handler: async (args) => {
        await onRun("delete_file");
        return `deleted ${args.path}`;
      },
    }),
  );
  return registry;
}

/** A replay model that also records the transcript it was given each turn. */
function recording(turns: ReplayTurn[]) {
  const seen: AgentMessage[][] = [];
  const inner = createReplayModel(turns);
  const model: LanguageModel = {
    id: "replay",
    stream(request) {
      seen.push(structuredClone([...request.messages]));
      return inner.stream(request);
    },
  };
  return { model, seen };
}

describe("a run's in-memory transcript and calls", () => {
  it("are what the store holds: same view, same transcript for the model, also after a pause and resume", async () => {
    const store = new SqliteStore(path.join(dir, "runs.db"));
    const { model, seen } = recording([
      {
        calls: [
          { name: "add", arguments: { a: 1, b: 2 } },
          { name: "nope", arguments: {} },
          { name: "add", arguments: { a: "x" } },
          { name: "add", arguments: { a: 3, b: 4 } },
        ],
      },
      { calls: [{ name: "delete_file", arguments: { path: "/tmp/a" } }] },
      { text: "Done." },
    ]);
    const agent = createAgent({ model, tools: tools(), store, system: "Be brief." });
    const paused = await agent.run("go").result;
    expect(paused.status).toBe("paused");
    expect(paused).toEqual(await agent.getRun(paused.runId));

    await agent.approve(paused.runId, paused.pending[0]?.callId as string);
    const view = await agent.resume(paused.runId).result;
    expect(view).toMatchObject({ status: "finished", answer: "Done." });
    expect(view).toEqual(await agent.getRun(view.runId));

    const conversationId = (await store.getRun(view.runId))?.conversationId as string;
    const transcript = await store.listMessages(conversationId);
    // Each turn the model saw exactly the stored transcript up to that point.
    for (const messages of seen) expect(messages).toEqual(transcript.slice(0, messages.length));
    expect(seen.at(-1)).toHaveLength(transcript.length - 1);
    await store.close();
  });
});

describe("batched writes", () => {
  it("commit a call's claim before its handler starts, and every change before the event that reports it", async () => {
    const file = path.join(dir, "runs.db");
    const store = new SqliteStore(file);
    // A second connection, read synchronously at the moment a handler starts or an event is emitted.
    const reader = new SqliteStore(file).db;
    const states = () =>
      new Map(
        (
          reader.prepare("SELECT id, state FROM tool_calls").all() as Array<{ id: string; state: string }>
        ).map((r) => [r.id, r.state]),
      );
    const runRow = () =>
      reader.prepare("SELECT step_count, status FROM runs").get() as { step_count: number; status: string };
    const statesAtStart: string[] = [];
    const checked: string[] = [];
    const agent = createAgent({
      model: createReplayModel([
        {
          calls: [
            { name: "add", arguments: { a: 1, b: 2 } },
            { name: "add", arguments: { a: 3, b: 4 } },
          ],
        },
        { text: "3 and 7." },
      ]),
      tools: tools(() => {
        // Another connection already sees every call of the step claimed (or finished): a crash from here on cannot
        // run one again.
        statesAtStart.push(...states().values());
      }),
      store,
      onEvent: (event: AgentEvent) => {
        if (event.type === "tool-started") expect(states().get(event.callId)).toBe("executing");
        if (event.type === "tool-result") expect(states().get(event.callId)).toBe("done");
        if (event.type === "step-finished") expect(runRow().step_count).toBe(event.step);
        if (event.type === "run-finished") expect(runRow().status).toBe("finished");
        checked.push(event.type);
      },
    });
    const view = await agent.run("sum").result;
    expect(view.status).toBe("finished");
    expect(checked.filter((t) => t.startsWith("tool-"))).toEqual([
      "tool-started",
      "tool-started",
      "tool-result",
      "tool-result",
    ]);
    expect(checked.at(-1)).toBe("run-finished");
    expect(statesAtStart).toHaveLength(4);
    expect(statesAtStart.every((s) => s === "executing" || s === "done")).toBe(true);
    await store.close();
    reader.close();
  });

  it("a decision recorded while the step's other calls run is taken up without pausing", async () => {
    const store = new SqliteStore(":memory:");
    const ran: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const agent = createAgent({
      model: createReplayModel([
        {
          calls: [
            { name: "delete_file", arguments: { path: "/tmp/a" } },
            { name: "add", arguments: { a: 1, b: 2 } },
          ],
        },
        { text: "Done." },
      ]),
      tools: tools(async (name) => {
        ran.push(name);
        if (name === "add") await gate;
      }),
      store,
    });
    const handle = agent.run("go");
    for await (const event of handle) {
      if (event.type === "approval-requested") {
        // The add call is running (it waits for the gate): decide the gated call before it returns.
        await agent.approve(handle.runId, event.calls[0]?.callId as string);
        release();
      }
    }
    const view = await handle.result;
    expect(view).toMatchObject({ status: "finished", answer: "Done.", pending: [] });
    expect(ran.sort()).toEqual(["add", "delete_file"]);
    expect(view.steps[0]?.calls.map((c) => c.result?.content)).toEqual([
      [{ type: "text", text: "deleted /tmp/a" }],
      [{ type: "text", text: "3" }],
    ]);
    expect(view).toEqual(await agent.getRun(view.runId));
    await store.close();
  });
});
