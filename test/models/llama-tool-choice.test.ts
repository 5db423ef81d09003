import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import type { AgentEvent } from "../../src/agent/events.js";
import type { LoadableModel } from "../../src/core/language-model.js";
import type { RoutedModel } from "../../src/models/create-model.js";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { createLlamaModel } from "../../src/models/llama/index.js";
import { createBuiltinTools } from "../../src/tools/builtin/index.js";
import { timeZoneNames } from "../../src/tools/builtin/resolve-time-zone.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { validateToolInput } from "../../src/tools/validate-tool-input.js";

// Real node-llama-cpp on a tiny random-weights GGUF: what is tested is that a forced call is always schema-valid.
const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-llama-choice-"));
const modelPath = path.join(dir, "tiny.gguf");
writeTestModel(modelPath, { seed: 7 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const definitions = createBuiltinTools().filter((d) =>
  ["calculator", "get_time", "roll_dice"].includes(d.tool.name),
);
const registry = new ToolRegistry();
registry.registerAll(definitions);
const RUNS = 50;

/** One loaded model per mode, shared by every run (a GGUF load per seed was most of this file's time). */
const models = new Map<"native" | "text", RoutedModel>();
function modelFor(mode: "native" | "text"): RoutedModel {
  let model = models.get(mode);
  if (!model) {
    model = createLlamaModel({ modelPath, mode, threads: 1, maxTokens: 256, gpu: false, temperature: 0.9 });
    models.set(mode, model);
  }
  return model;
}

/** The shared model with `seed` as every request's sampling seed (a request's seed overrides the model's). */
function seeded(model: RoutedModel, seed: number): RoutedModel {
  const loadable = model as Partial<LoadableModel>;
  return {
    id: model.id,
    supportsNativeTools: model.supportsNativeTools,
    stream: (request) => model.stream({ ...request, sampling: { ...request.sampling, seed } }),
    // Loaded once for every seed: the agent sees it loading (or loaded) as it would the model itself.
    get loaded() {
      return loadable.loaded;
    },
    ...(loadable.load ? { load: loadable.load.bind(model) } : {}),
  } as RoutedModel;
}

async function forcedCall(
  mode: "native" | "text",
  seed: number,
  toolChoice: "required" | { name: string } = "required",
  prompt = "What time is it? Roll 2d6 and compute 3*7.",
) {
  const model = seeded(modelFor(mode), seed);
  const agent = createAgent({ model, tools: registry, toolChoice, limits: { maxSteps: 1 } });
  const handle = agent.run(prompt);
  const calls: AgentEvent[] = [];
  for await (const event of handle) {
    if (event.type === "call-finished" || event.type === "call-invalid") calls.push(event);
  }
  await handle.result;
  await agent.close();
  return calls;
}

describe.each(["native", "text"] as const)("toolChoice required, %s mode, tiny GGUF", (mode) => {
  it(`makes a schema-valid call in ${RUNS} of ${RUNS} runs with different seeds`, async () => {
    const invalid: string[] = [];
    const names = new Set<string>();
    for (let seed = 1; seed <= RUNS; seed++) {
      const calls = await forcedCall(mode, seed);
      const first = calls[0];
      if (first?.type !== "call-finished") {
        invalid.push(`seed ${seed}: ${first ? JSON.stringify(first) : "no call"}`);
        continue;
      }
      const tool = definitions.find((d) => d.tool.name === first.name);
      const check = tool
        ? validateToolInput(tool.tool, first.arguments)
        : { ok: false as const, issues: ["unknown tool"] };
      if (!check.ok)
        invalid.push(
          `seed ${seed}: ${first.name} ${JSON.stringify(first.arguments)} ${check.issues.join("; ")}`,
        );
      names.add(first.name);
    }
    expect(invalid).toEqual([]);
    expect(names.size).toBeGreaterThan(0);
  }, 600_000);
});

describe("time zones under the grammar, tiny GGUF", () => {
  // Random weights write noise; the zone must still be one that exists, because the call-body grammar lists them.
  // Without that, a model copying a name it half knows writes "Europe/Vilius" and the call fails. (Native mode keeps
  // a plain string: node-llama-cpp prints its function schemas into the prompt, and 400 names would swamp it.)
  it("get_time names a real IANA zone in text mode, whatever the model", async () => {
    const zones = new Set(timeZoneNames());
    const written: string[] = [];
    for (let seed = 1; seed <= 10; seed++) {
      const [first] = await forcedCall("text", seed, { name: "get_time" });
      expect(first?.type).toBe("call-finished");
      if (first?.type !== "call-finished") continue;
      expect(first.name).toBe("get_time");
      const timezone = first.arguments.timezone;
      if (typeof timezone === "string") written.push(timezone);
    }
    expect(written.length).toBeGreaterThan(0);
    expect(written.filter((zone) => !zones.has(zone))).toEqual([]);
  }, 300_000);

  // A request that names zones holds a tiny model's zone to them (copy-constrained arguments): a model that half
  // knows "Europe/Belgrade" cannot write the real but wrong "Europe/Brussels".
  it("get_time names one of the zones the request names, when it names any", async () => {
    const written = new Set<string>();
    for (let seed = 1; seed <= 10; seed++) {
      const [first] = await forcedCall(
        "text",
        seed,
        { name: "get_time" },
        "Time in Europe/Belgrade or jakarta?",
      );
      if (first?.type === "call-finished" && typeof first.arguments.timezone === "string")
        written.add(first.arguments.timezone);
    }
    expect(written.size).toBeGreaterThan(0);
    expect([...written].filter((zone) => zone !== "Europe/Belgrade" && zone !== "Asia/Jakarta")).toEqual([]);
  }, 300_000);
});
