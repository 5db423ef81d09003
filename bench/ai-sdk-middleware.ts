/**
 * bench:ai-sdk-middleware — toolbridge's AI SDK middleware (`toolbridgeToolMiddleware({ protocol: "hermes" })`) against
 * `@ai-sdk-tool/parser`'s `hermesToolMiddleware` (the devDependency, pinned: 4.1.26, the last release on npm), both
 * through the AI SDK's own `wrapLanguageModel` over the same `MockLanguageModelV3` streaming the same parts
 * (pull-based, no delays, each part made as it is read), in one process, each result drained as a caller would:
 *
 * (a) ~1 MB of model output — a sentence or two of prose between ~3,000 Hermes calls (bench/model-output.ts,
 *     `MANY_CALLS`) — in 1–4 character chunks: every side must find the same calls, and toolbridge's text must be the
 *     prose alone (no markup). Goal ≥ 3× faster. The harness alone (no middleware) is shown too;
 * (b) one call with a 100 KB string argument (4.1.26 rescans the growing call on every chunk: one round only).
 *     Goal ≥ 50× faster;
 * (c) linear: toolbridge at 4× each size (4 MB of output, a 400 KB argument): the time per character may grow at
 *     most 1.2×.
 *
 * Run: npm run bench:ai-sdk-middleware (about a minute, most of it 4.1.26 on the large argument).
 * Times are the process's CPU time (steady on a busy machine), the median of several rounds after a warm-up.
 */

import type { LanguageModelV3Middleware, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { hermesToolMiddleware } from "@ai-sdk-tool/parser";
import { type LanguageModelMiddleware, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { toolbridgeToolMiddleware } from "../src/ai-sdk/toolbridge-tool-middleware.js";
import {
  BENCH_TOOLS,
  type BenchCall,
  chunkOffsets,
  generateOutput,
  largeArgumentOutput,
  MANY_CALLS,
  type Output,
} from "./model-output.js";

const SIZE = Number(process.env.BENCH_SIZE ?? 1_000_000);
const LARGE_ARG = Number(process.env.BENCH_LARGE_ARG ?? 100_000);
const SEED = 20_251_122;
const GOAL_MANY_CALLS = 3;
const GOAL_LARGE_ARGUMENT = 50;
const GOAL_LINEAR = 1.2;

type Part = LanguageModelV3StreamPart;

/** A model's output and where its 1–4 character chunks begin, as `text-delta` parts made as they are read. */
interface Script {
  text: string;
  offsets: Uint32Array;
}

const script = (text: string, seed: number): Script => ({ text, offsets: chunkOffsets(text, seed) });
const chunkCount = (s: Script) => s.offsets.length - 1;

/**
 * The mock model's stream: stream-start, the text in its chunks, finish — each part made when it is pulled (a
 * socket's fresh strings), so the 4× runs do not also carry millions of pre-built parts on the heap. Pull-based
 * without delays, as `simulateReadableStream({ chunkDelayInMs: null })`.
 */
function modelStream({ text, offsets }: Script): ReadableStream<Part> {
  let k = -2;
  const chunks = offsets.length - 1;
  return new ReadableStream<Part>(
    {
      pull(controller) {
        k++;
        if (k === -1) controller.enqueue({ type: "stream-start", warnings: [] });
        else if (k === 0) controller.enqueue({ type: "text-start", id: "t0" });
        else if (k <= chunks)
          controller.enqueue({ type: "text-delta", id: "t0", delta: text.slice(offsets[k - 1], offsets[k]) });
        else if (k === chunks + 1) controller.enqueue({ type: "text-end", id: "t0" });
        else if (k === chunks + 2)
          controller.enqueue({
            type: "finish",
            finishReason: { unified: "stop", raw: "stop" },
            usage: {
              inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
              outputTokens: { total: chunks, text: chunks, reasoning: 0 },
            },
          });
        else controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

const SDK_TOOLS = BENCH_TOOLS.map((t) => ({
  type: "function" as const,
  name: t.name,
  description: t.description,
  inputSchema: t.inputSchema as Record<string, unknown>,
}));

const TOOLBRIDGE = toolbridgeToolMiddleware({ protocol: "hermes" });
const NO_MIDDLEWARE: LanguageModelV3Middleware = { specificationVersion: "v3" };

interface Drained {
  calls: BenchCall[];
  text: string;
  parts: number;
}

/** `middleware` over the parts through the AI SDK's mock model, drained; `collect` keeps the text (checks only). */
async function run(output: Script, middleware: LanguageModelMiddleware, collect: boolean): Promise<Drained> {
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: modelStream(output),
    }),
  });
  const wrapped = wrapLanguageModel({ model, middleware });
  const { stream } = await wrapped.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "Do the work." }] }],
    tools: SDK_TOOLS,
  });
  const reader = stream.getReader();
  const calls: BenchCall[] = [];
  const text: string[] = [];
  let count = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    count++;
    if (value.type === "tool-call")
      calls.push({ name: value.toolName, arguments: JSON.parse(value.input) as Record<string, unknown> });
    else if (collect && value.type === "text-delta") text.push(value.delta);
  }
  return { calls, text: text.join(""), parts: count };
}

function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function median(rounds: number, warmup: number, fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = cpuMs();
    await fn();
    times.push(cpuMs() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] as number;
}

function sameCalls(label: string, got: readonly BenchCall[], want: readonly BenchCall[]): boolean {
  const same = JSON.stringify(got) === JSON.stringify(want);
  if (!same) console.log(`MISMATCH ${label}: ${got.length} calls, expected ${want.length}`);
  return same;
}

/** The prose of the output: its text with the calls taken out. */
const prose = (output: Output): string => output.text.replace(/<tool_call>\n[\s\S]*?\n<\/tool_call>/g, "");

const rows: [string, string, string][] = [];
const row = (what: string, value: string, note = "") => {
  rows.push([what, value, note]);
  console.log(`${what}: ${value}${note ? ` (${note})` : ""}`);
};
const ms = (t: number) => `${t.toFixed(0)} ms`;
const ratio = (x: number) => `${x.toFixed(1)}×`;
const verdict = (ok: boolean) => (ok ? "met" : "NOT met");

async function main(): Promise<void> {
  console.log(`bench:ai-sdk-middleware — node ${process.version}, seed ${SEED}`);
  const many = generateOutput(SEED, SIZE, MANY_CALLS);
  const manyParts = script(many.text, SEED);
  const large = largeArgumentOutput(SEED + 2, LARGE_ARG);
  const largeParts = script(large.text, SEED + 2);
  console.log(
    `(a) ${many.text.length.toLocaleString()} chars, ${many.calls.length.toLocaleString()} calls, ${chunkCount(manyParts).toLocaleString()} chunks of 1–4 chars; (b) one call with a ${(LARGE_ARG / 1000).toFixed(0)} KB argument, ${chunkCount(largeParts).toLocaleString()} chunks`,
  );

  // Correctness first: the same calls on every side, and toolbridge's text is the prose alone.
  let ok = true;
  const ours = await run(manyParts, TOOLBRIDGE, true);
  ok = sameCalls("toolbridge", ours.calls, many.calls) && ok;
  const theirs = await run(manyParts, hermesToolMiddleware as LanguageModelMiddleware, true);
  ok = sameCalls("@ai-sdk-tool/parser", theirs.calls, many.calls) && ok;
  const cleanText = ours.text === prose(many);
  if (!cleanText) console.log("MISMATCH toolbridge text is not the prose of the output");
  ok &&= cleanText;

  const tOurs = await median(5, 1, () => run(manyParts, TOOLBRIDGE, false));
  const tTheirs = await median(3, 0, () =>
    run(manyParts, hermesToolMiddleware as LanguageModelMiddleware, false),
  );
  const tBare = await median(5, 1, () => run(manyParts, NO_MIDDLEWARE as LanguageModelMiddleware, false));
  row("(a) @ai-sdk-tool/parser 4.1.26 hermes", ms(tTheirs), `${theirs.parts.toLocaleString()} parts out`);
  row("(a) toolbridge hermes", ms(tOurs), `${ours.parts.toLocaleString()} parts out`);
  row("(a) the harness alone (no middleware)", ms(tBare), "the mock model's stream, drained");
  const speedMany = tTheirs / tOurs;
  row(
    "(a) ratio 4.1.26 / toolbridge",
    ratio(speedMany),
    `goal ≥ ${GOAL_MANY_CALLS}×: ${verdict(speedMany >= GOAL_MANY_CALLS)}`,
  );
  row(
    "(a) ratio above the harness",
    ratio((tTheirs - tBare) / Math.max(1e-9, tOurs - tBare)),
    "both less the no-middleware drain",
  );

  const oursLarge = await run(largeParts, TOOLBRIDGE, false);
  ok = sameCalls("toolbridge, large argument", oursLarge.calls, large.calls) && ok;
  const tOursLarge = await median(7, 2, () => run(largeParts, TOOLBRIDGE, false));
  let theirsLarge: Drained = { calls: [], text: "", parts: 0 };
  const tTheirsLarge = await median(1, 0, async () => {
    theirsLarge = await run(largeParts, hermesToolMiddleware as LanguageModelMiddleware, false);
  });
  ok = sameCalls("@ai-sdk-tool/parser, large argument", theirsLarge.calls, large.calls) && ok;
  row("(b) @ai-sdk-tool/parser 4.1.26 hermes (1 round)", ms(tTheirsLarge));
  row("(b) toolbridge hermes", ms(tOursLarge));
  const speedLarge = tTheirsLarge / tOursLarge;
  row(
    "(b) ratio 4.1.26 / toolbridge",
    ratio(speedLarge),
    `goal ≥ ${GOAL_LARGE_ARGUMENT}×: ${verdict(speedLarge >= GOAL_LARGE_ARGUMENT)}`,
  );

  const many4 = generateOutput(SEED + 1, 4 * SIZE, MANY_CALLS);
  const many4Parts = script(many4.text, SEED + 1);
  const large4 = largeArgumentOutput(SEED + 3, 4 * LARGE_ARG);
  const large4Parts = script(large4.text, SEED + 3);
  ok = sameCalls("toolbridge 4×", (await run(many4Parts, TOOLBRIDGE, false)).calls, many4.calls) && ok;
  ok =
    sameCalls("toolbridge 4× argument", (await run(large4Parts, TOOLBRIDGE, false)).calls, large4.calls) &&
    ok;
  const tOurs4 = await median(3, 0, () => run(many4Parts, TOOLBRIDGE, false));
  const tBare4 = await median(3, 0, () => run(many4Parts, NO_MIDDLEWARE as LanguageModelMiddleware, false));
  const tOursLarge4 = await median(5, 1, () => run(large4Parts, TOOLBRIDGE, false));
  const growthMany = tOurs4 / many4.text.length / (tOurs / many.text.length);
  const growthBare = tBare4 / many4.text.length / (tBare / many.text.length);
  const growthLarge = tOursLarge4 / large4.text.length / (tOursLarge / large.text.length);
  row(
    "(c) toolbridge 4× output, per-char cost growth",
    ratio(growthMany),
    `${ms(tOurs4)} for ${(many4.text.length / 1e6).toFixed(1)} MB; goal ≤ ${GOAL_LINEAR}×: ${verdict(growthMany <= GOAL_LINEAR)}`,
  );
  row("(c) the harness alone, 4× output, per-char cost growth", ratio(growthBare), `${ms(tBare4)}`);
  row(
    "(c) toolbridge 4× argument, per-char cost growth",
    ratio(growthLarge),
    `${ms(tOursLarge4)} for ${(LARGE_ARG * 4) / 1000} KB; goal ≤ ${GOAL_LINEAR}×: ${verdict(growthLarge <= GOAL_LINEAR)}`,
  );

  console.log("\n| measurement | value | note |\n|---|---|---|");
  for (const [what, value, note] of rows) console.log(`| ${what} | ${value} | ${note} |`);
  console.log(
    ok ? "every side found the expected calls; toolbridge's text is the prose alone" : "MISMATCH (see above)",
  );
  if (!ok) process.exitCode = 1;
}

await main();
