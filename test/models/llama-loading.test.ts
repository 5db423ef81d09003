/**
 * A GGUF model handed to the agent unloaded (a library user's `createLlamaModel`): the run loads it before its first
 * step and says so in its events; the model reports itself loaded afterwards.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { createLlamaModel } from "../../src/models/llama/index.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";

const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-llama-loading-"));
const modelPath = path.join(dir, "tiny.gguf");
writeTestModel(modelPath, { seed: 29 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("a GGUF model loaded by the run that first needs it", () => {
  it("emits model-loading and model-loaded before the first step; later runs do not wait", async () => {
    const model = createLlamaModel({ modelPath, threads: 1, maxTokens: 8, gpu: false, temperature: 0 });
    expect(model.loaded).toBe(false);
    const agent = createAgent({ model, tools: new ToolRegistry(), toolChoice: "none" });
    const events: AgentEvent[] = [];
    const handle = agent.run("Say something.");
    for await (const event of handle) events.push(event);
    const types = events.map((e) => e.type);
    expect(types.slice(0, 2)).toEqual(["run-started", "model-loading"]);
    expect(types.lastIndexOf("model-loading")).toBeLessThan(types.indexOf("model-loaded"));
    expect(types.indexOf("model-loaded")).toBe(types.indexOf("step-started") - 1);
    const progress = events.flatMap((e) =>
      e.type === "model-loading" && e.progress !== undefined ? [e.progress] : [],
    );
    // Where node-llama-cpp reports fractions (a plain process does; under the test runner it reports only 1) they
    // lie strictly between 0 and 1: the end is model-loaded's to say.
    for (const p of progress) expect(p > 0 && p < 1).toBe(true);
    expect(model.loaded).toBe(true);
    expect((await handle.result).stopReason).not.toBe("model-error");

    const again: string[] = [];
    for await (const event of agent.run("Again.")) again.push(event.type);
    expect(again).not.toContain("model-loading");
  }, 60_000);
});
