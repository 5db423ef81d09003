import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { createLlamaModel } from "../../src/models/llama/index.js";
import { createBuiltinTools } from "../../src/tools/builtin/index.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";

const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-llama-cancel-"));
const modelPath = path.join(dir, "tiny.gguf");
writeTestModel(modelPath, { seed: 11 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const registry = new ToolRegistry();
registry.registerAll(createBuiltinTools().filter((d) => d.tool.name === "calculator"));

describe.each(["native", "text"] as const)("cancellation, %s mode", (mode) => {
  it("stops generation promptly when the run's signal fires mid-generation", async () => {
    // Greedy decoding of this random model never emits end-of-turn: only the abort can end the turn early.
    const model = createLlamaModel({
      modelPath,
      mode,
      threads: 1,
      maxTokens: 100_000,
      contextSize: 4096,
      gpu: false,
      temperature: 0,
    });
    const agent = createAgent({ model, tools: registry, toolChoice: "none" });
    const controller = new AbortController();
    const handle = agent.run("Tell me a very long story.", { signal: controller.signal });
    let deltas = 0;
    let abortedAt = 0;
    for await (const event of handle) {
      if (event.type === "text-delta" && ++deltas === 20) {
        abortedAt = performance.now();
        controller.abort();
      }
    }
    const view = await handle.result;
    const stoppedAfter = performance.now() - abortedAt;
    expect(deltas).toBeGreaterThanOrEqual(20);
    expect(view.stopReason).toBe("aborted");
    // ~100 ms is the goal; the bound leaves room for a loaded two-core machine.
    expect(stoppedAfter).toBeLessThan(500);
    console.log(`${mode}: stopped ${stoppedAfter.toFixed(1)} ms after the abort`);

    // At the model level the stream ends only once node-llama-cpp has stopped and the sequence is free again.
    const direct = new AbortController();
    let n = 0;
    let at = 0;
    const consume = async () => {
      for await (const event of model.stream({
        messages: [{ role: "user", content: "Go on." }],
        tools: [],
        toolChoice: "none",
        signal: direct.signal,
      })) {
        if (event.type === "text-delta" && ++n === 20) {
          at = performance.now();
          direct.abort(new Error("cancelled by the test"));
        }
      }
    };
    await expect(consume()).rejects.toThrow("cancelled by the test");
    const generationStoppedAfter = performance.now() - at;
    expect(generationStoppedAfter).toBeLessThan(500);
    console.log(`${mode}: node-llama-cpp stopped ${generationStoppedAfter.toFixed(1)} ms after the abort`);

    // The context sequence was given back: the shared loaded model generates again at once.
    const short = createLlamaModel({
      modelPath,
      mode,
      threads: 1,
      maxTokens: 16,
      gpu: false,
      temperature: 0,
    });
    const next = createAgent({ model: short, tools: registry, toolChoice: "none" });
    const again = await next.run("Hi").result;
    expect(again.stopReason).toBe("length");
    await agent.close();
    await next.close();
  }, 120_000);
});
