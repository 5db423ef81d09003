import { describe, expect, it } from "vitest";
import type { LanguageModel, LoadableModel } from "../core/language-model.js";
import { createReplayModel } from "../models/replay-model.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { createAgent } from "./create-agent.js";
import type { AgentEvent } from "./events.js";

/** A replay model that must be loaded first; `load` runs `loading` (which may report progress) each time it is asked. */
function loadable(
  loading: (onProgress: (p: number) => void) => Promise<void>,
  inner: LanguageModel = createReplayModel([{ text: "Hi." }, { text: "Hi again." }], { id: "demo" }),
): LoadableModel & { loads: number } {
  let ready = false;
  const model = {
    id: inner.id,
    loads: 0,
    get loaded() {
      return ready;
    },
    async load(options: { onProgress?: (p: number) => void } = {}) {
      model.loads += 1;
      await loading(options.onProgress ?? (() => {}));
      ready = true;
    },
    stream: (request: Parameters<LanguageModel["stream"]>[0]) => inner.stream(request),
  };
  return model;
}

async function eventsOf(handle: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const event of handle) events.push(event);
  return events;
}

describe("a model that must be loaded before a run's first step", () => {
  it("shows the load as events (progress at most every 250 ms), then the steps; a second run does not load again", async () => {
    // node-llama-cpp reports a small file's progress all at once, starting with a stray 1.
    const model = loadable(async (onProgress) => {
      for (const p of [1, 0.18, 0.27, 0.45, 0.82, 1]) onProgress(p);
    });
    const agent = createAgent({ model, tools: new ToolRegistry() });
    const events = await eventsOf(agent.run("hello"));
    expect(events.map((e) => e.type)).toEqual([
      "run-started",
      "model-loading",
      "model-loading",
      "model-loaded",
      "step-started",
      "text-delta",
      "step-finished",
      "run-finished",
    ]);
    expect(events[1]).toEqual({
      type: "model-loading",
      model: "demo",
      runId: events[0]?.runId,
      at: expect.any(Number),
    });
    expect(events[2]).toMatchObject({ type: "model-loading", model: "demo", progress: 0.18 });
    expect(events[3]).toMatchObject({ type: "model-loaded", model: "demo", durationMs: expect.any(Number) });
    const again = await eventsOf(agent.run("again"));
    expect(again.map((e) => e.type)).not.toContain("model-loading");
    expect(model.loads).toBe(1);
  });

  it("a load that fails ends the run with the reason (model-error), in its events and its view", async () => {
    const model = loadable(async () => {
      throw new Error("Cannot load demo.gguf: Invalid GGUF magic");
    });
    const agent = createAgent({ model, tools: new ToolRegistry() });
    const handle = agent.run("hello");
    const events = await eventsOf(handle);
    expect(events.map((e) => e.type)).toEqual(["run-started", "model-loading", "error", "run-finished"]);
    const view = await handle.result;
    expect(view).toMatchObject({ status: "stopped", stopReason: "model-error" });
    expect(view.error).toBe("The model could not be loaded: Cannot load demo.gguf: Invalid GGUF magic");
    expect((await agent.getRun(view.runId)).error).toBe(view.error);
  });

  it("a run stopped while its model loads ends at once (aborted), without waiting for the load", async () => {
    let release = () => {};
    const model = loadable(() => new Promise<void>((resolve) => (release = resolve)));
    const agent = createAgent({ model, tools: new ToolRegistry() });
    const controller = new AbortController();
    const handle = agent.run("hello", { signal: controller.signal });
    const events: AgentEvent[] = [];
    for await (const event of handle) {
      events.push(event);
      if (event.type === "model-loading") controller.abort();
    }
    expect(events.map((e) => e.type)).toEqual(["run-started", "model-loading", "run-finished"]);
    expect(await handle.result).toMatchObject({ status: "stopped", stopReason: "aborted" });
    release();
  });
});
