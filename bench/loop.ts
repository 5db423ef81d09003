/**
 * Per-step overhead of toolbridge's agent loop vs the AI SDK's `generateText` multi-step loop.
 * Same scripted 5-step conversation (4 steps with one tool call each, then a final answer), the same 10 tools with
 * zod schemas, zero model time and zero tool time — so what is measured is the loop itself: validation, approval
 * policy, execution bookkeeping, and (for toolbridge) committing every step to SQLite.
 * Run: npm run bench:loop
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { z } from "zod";
import { createAgent } from "../src/agent/create-agent.js";
import { createReplayModel, type ReplayTurn } from "../src/models/replay-model.js";
import { SqliteStore } from "../src/store/sqlite-store.js";
import { defineTool } from "../src/tools/define-tool.js";
import { ToolExecutor } from "../src/tools/tool-executor.js";
import { ToolRegistry } from "../src/tools/tool-registry.js";

const STEPS = 5;
const TOOL_COUNT = 10;
const RUNS = Number(process.env.BENCH_RUNS ?? 1000);
// Both loops keep getting faster for the first few hundred runs (V8 tiers up); measuring before that compares
// warm-up speed, not the loops. 300 warm-up runs per side.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 300);

const schema = z.object({ query: z.string(), limit: z.number().int().min(1).max(10) });
const toolName = (i: number) => `tool_${i}`;
const script: ReplayTurn[] = [
  ...Array.from({ length: STEPS - 1 }, (_, i) => ({
    calls: [{ id: `c${i}`, name: toolName(i * 2), arguments: { query: `step ${i}`, limit: 3 } }],
  })),
  { text: "Here is the answer." },
];

// --- toolbridge -------------------------------------------------------------------------------------------------
function toolbridgeRunner(store: SqliteStore) {
  const registry = new ToolRegistry();
  for (let i = 0; i < TOOL_COUNT; i++) {
    registry.register(
      defineTool({
        name: toolName(i),
        description: `Tool number ${i}.`,
        inputSchema: schema,
        annotations: { readOnlyHint: true },
        handler: ({ query }) => `result for ${query}`,
      }),
    );
  }
  const agent = createAgent({
    model: createReplayModel(script),
    tools: new ToolExecutor(registry, { redact: false }),
    store,
    redact: false,
  });
  return async () => {
    const view = await agent.run("question").result;
    if (view.status !== "finished" || view.steps.length !== STEPS)
      throw new Error(`unexpected run: ${JSON.stringify(view)}`);
  };
}

// --- AI SDK -----------------------------------------------------------------------------------------------------
function aiSdkRunner() {
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
    outputTokens: { total: 1, text: 1, reasoning: undefined },
  };
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const turn = options.prompt.filter((m) => m.role === "assistant").length;
      const scripted = script[turn] as ReplayTurn;
      if (scripted.calls) {
        const call = scripted.calls[0] as { id: string; name: string; arguments: unknown };
        return {
          content: [
            {
              type: "tool-call",
              toolCallId: call.id,
              toolName: call.name,
              input: JSON.stringify(call.arguments),
            },
          ],
          finishReason: { unified: "tool-calls", raw: undefined },
          usage,
          warnings: [],
        };
      }
      return {
        content: [{ type: "text", text: scripted.text ?? "" }],
        finishReason: { unified: "stop", raw: undefined },
        usage,
        warnings: [],
      };
    },
  });
  const tools = Object.fromEntries(
    Array.from({ length: TOOL_COUNT }, (_, i) => [
      toolName(i),
      tool({
        description: `Tool number ${i}.`,
        inputSchema: schema,
        execute: async ({ query }) => `result for ${query}`,
      }),
    ]),
  );
  return async () => {
    const result = await generateText({ model, tools, prompt: "question", stopWhen: stepCountIs(STEPS) });
    if (result.steps.length !== STEPS) throw new Error(`AI SDK ran ${result.steps.length} steps`);
  };
}

const BATCHES = 10;
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
};

/**
 * µs per step for each runner. All are warmed up first; then their batches are interleaved (A B C, A B C, …) so that
 * a machine whose load changes during the bench slows every side alike, and each figure is the median of its batches
 * (robust against GC pauses). The ratio is the median of the per-round ratios, each taken from batches run back to
 * back.
 */
async function perStepMicros(runners: ReadonlyArray<() => Promise<void>>): Promise<number[][]> {
  for (const run of runners) for (let i = 0; i < WARMUP; i++) await run();
  const perBatch = Math.max(1, Math.round(RUNS / BATCHES));
  const samples = runners.map(() => [] as number[]);
  for (let batch = 0; batch < BATCHES; batch++) {
    for (const [k, run] of runners.entries()) {
      const start = performance.now();
      for (let i = 0; i < perBatch; i++) await run();
      samples[k]?.push(((performance.now() - start) * 1000) / (perBatch * STEPS));
    }
  }
  return samples;
}

const dir = mkdtempSync(path.join(tmpdir(), "tb-bench-loop-"));
try {
  const memory = new SqliteStore(":memory:");
  const durable = new SqliteStore(path.join(dir, "bench.db"), { synchronous: "normal" });
  const [theirsSamples = [], oursSamples = [], fileSamples = []] = await perStepMicros([
    aiSdkRunner(),
    toolbridgeRunner(memory),
    toolbridgeRunner(durable),
  ]);
  await memory.close();
  await durable.close();
  const theirs = median(theirsSamples);
  const ours = median(oursSamples);
  const oursFile = median(fileSamples);
  const ratio = (mine: number[]) => median(mine.map((us, i) => us / (theirsSamples[i] as number)));
  const fmt = (us: number) => `${us.toFixed(1)} µs/step`;
  console.log(
    `loop overhead, ${STEPS}-step scripted conversation, ${TOOL_COUNT} tools, ${RUNS} runs per side after ${WARMUP} warm-up runs (median of ${BATCHES} interleaved batches)`,
  );
  console.log(`  AI SDK generateText (MockLanguageModelV3)        ${fmt(theirs)}`);
  console.log(
    `  toolbridge agent, SQLite :memory:                ${fmt(ours)}   ratio ${ratio(oursSamples).toFixed(2)}`,
  );
  console.log(
    `  toolbridge agent, SQLite file (WAL, sync=normal) ${fmt(oursFile)}   ratio ${ratio(fileSamples).toFixed(2)}`,
  );
  console.log(
    `goal: ours <= 1/3 of theirs (ratio <= 0.33) -> ${ratio(oursSamples) <= 1 / 3 ? "met" : "NOT met"} (in-memory store)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
