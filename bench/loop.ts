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
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { createAgent } from "../src/agent/create-agent.js";
import { createReplayModel, type ReplayTurn } from "../src/agent/replay-model.js";
import { SqliteStore } from "../src/store/sqlite-store.js";
import { defineTool } from "../src/tools/define-tool.js";
import { ToolExecutor } from "../src/tools/tool-executor.js";
import { ToolRegistry } from "../src/tools/tool-registry.js";

const STEPS = 5;
const TOOL_COUNT = 10;
const RUNS = Number(process.env.BENCH_RUNS ?? 300);
const WARMUP = 50;

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
  const model = new MockLanguageModelV4({
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

async function perStepMicros(run: () => Promise<void>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await run();
  const samples: number[] = [];
  // Median of 5 batches: robust against GC pauses and a busy machine.
  for (let batch = 0; batch < 5; batch++) {
    const start = performance.now();
    for (let i = 0; i < RUNS / 5; i++) await run();
    samples.push(((performance.now() - start) * 1000) / ((RUNS / 5) * STEPS));
  }
  samples.sort((a, b) => a - b);
  return samples[2] as number;
}

const dir = mkdtempSync(path.join(tmpdir(), "tb-bench-loop-"));
try {
  const memory = new SqliteStore(":memory:");
  const durable = new SqliteStore(path.join(dir, "bench.db"), { synchronous: "normal" });
  const theirs = await perStepMicros(aiSdkRunner());
  const ours = await perStepMicros(toolbridgeRunner(memory));
  const oursFile = await perStepMicros(toolbridgeRunner(durable));
  await memory.close();
  await durable.close();
  const fmt = (us: number) => `${us.toFixed(1)} µs/step`;
  console.log(
    `loop overhead, ${STEPS}-step scripted conversation, ${TOOL_COUNT} tools, ${RUNS} runs (median of 5 batches)`,
  );
  console.log(`  AI SDK generateText (MockLanguageModelV4)        ${fmt(theirs)}`);
  console.log(
    `  toolbridge agent, SQLite :memory:                ${fmt(ours)}   ratio ${(ours / theirs).toFixed(2)}`,
  );
  console.log(
    `  toolbridge agent, SQLite file (WAL, sync=normal) ${fmt(oursFile)}   ratio ${(oursFile / theirs).toFixed(2)}`,
  );
  console.log(
    `goal: ours <= 1/3 of theirs (ratio <= 0.33) -> ${ours / theirs <= 1 / 3 ? "met" : "NOT met"} (in-memory store)`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
