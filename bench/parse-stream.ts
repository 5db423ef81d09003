/**
 * bench:parse-stream — the streaming tool-call parser on ~1 MB of realistic model output (prose paragraphs and
 * Hermes `<tool_call>` calls, some with long string arguments full of escaped quotes, newlines and unicode),
 * streamed in 1–4 character chunks from a seeded PRNG. Side by side in one process:
 *
 * (a) toolbridge at 1× and 10× the size → growth of the per-character cost (goal ≤ 1.1×: linear). Chunks are
 *     sliced off as they are pushed, so the 10× run does not carry 4 M pre-cut strings on the heap;
 * (b) @ai-sdk-tool/parser@4.1.26's `hermesToolMiddleware` (a V3 middleware, hence `MockLanguageModelV3`) on the
 *     same chunks, driven through the AI SDK's test model (`simulateReadableStream` without delays +
 *     `wrapLanguageModel`, stream drained) — every side must find the same calls. Ratios:
 *       - 4.1.26 middleware / toolbridge push loop: the issue's goal (≥ 3×);
 *       - both through the SDK: toolbridge wrapped as a one-stage middleware in the same harness (web-stream
 *         stages cost ~1 µs per part each at these chunk sizes, so this ratio is bounded by the harness);
 *       - parsing only: 4.1.26's hermes stream transformer called directly, without web streams;
 *       - above the harness: both middleware times less the empty-middleware drain;
 *     plus the stage count of each pipeline, and (b′) one call with a 100 KB string argument, where 4.1.26
 *     rescans the growing call on every chunk (quadratic: one round only);
 * (c) a single `JSON.parse` of an equivalent JSON payload (the same prose and calls as a JSON document), against
 *     the streamed parse and against one push of the whole output;
 * (d) adversarial input for EVERY registered format: each of its call-start markers repeated without a body
 *     (many unterminated openers), and long runs of `{`, `[`, `<`, at 1 MB and 4 MB in 3-character chunks →
 *     the 1 MB → 4 MB time ratio per format, worst pattern (goal ≤ 4.4×: linear, with room for noise), and
 *     its cost per character; each size's least CPU time of alternating rounds (see `bestPair`). `BENCH_ONLY=d` runs this section alone; `BENCH_ADV_SIZE` sets the 1× size,
 *     `BENCH_FORMATS=a,b` limits it to some formats.
 *
 * Run: npm run bench:parse-stream   (a few minutes at most; `BENCH_ONLY=a` runs toolbridge alone, for quick
 * turns while working on the parser). `BENCH_IMPL=<dir>` points at another copy of `src/protocols` (e.g. a
 * snapshot before a change) to compare.
 * Method: warm-up, then the median of several rounds per measurement, all in one process; times are the process's
 * CPU time (equal to wall time on an idle machine, and steady on a busy one). No forced GC between rounds: a full
 * `gc()` shrinks V8's young generation, which made the rounds after it several times slower than steady state.
 */
import { isDeepStrictEqual } from "node:util";
import type { LanguageModelV3Middleware, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { hermesProtocol as aiSdkHermesProtocol, hermesToolMiddleware } from "@ai-sdk-tool/parser";
import { type LanguageModelMiddleware, simulateReadableStream, wrapLanguageModel } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import type { ToolCallProtocol } from "../src/protocols/protocol.js";
import type { ParserEvent } from "../src/protocols/types.js";
import {
  BENCH_TOOLS,
  type BenchCall,
  chunkOffsets,
  chunkText,
  generateOutput,
  largeArgumentOutput,
} from "./model-output.js";

const SIZE = Number(process.env.BENCH_SIZE ?? 1_000_000);
const ADV_SIZE = Number(process.env.BENCH_ADV_SIZE ?? 1_000_000);
const GOAL_ADV_RATIO = 4.4;
const LARGE_ARG = Number(process.env.BENCH_LARGE_ARG ?? 100_000);
const SEED = 20_251_122;
const GOAL_LINEAR = 1.1;
const GOAL_SPEEDUP = 3;

const implDir = process.env.BENCH_IMPL;
const hermes: ToolCallProtocol = implDir
  ? (
      (await import(`${implDir.replace(/\/$/, "")}/formats/hermes.js`)) as {
        hermesProtocol: ToolCallProtocol;
      }
    ).hermesProtocol
  : (await import("../src/protocols/formats/hermes.js")).hermesProtocol;

const { listProtocols } = (await import(
  implDir ? `${implDir.replace(/\/$/, "")}/protocol-registry.js` : "../src/protocols/protocol-registry.js"
)) as { listProtocols: () => readonly ToolCallProtocol[] };

// --- runners ----------------------------------------------------------------------------------------------------

interface RunResult {
  calls: BenchCall[];
  content: string;
}

/** toolbridge's parser, pushed chunk by chunk. `collect` keeps calls and content (verification runs only). */
function runToolbridge(chunks: readonly string[], collect: boolean): RunResult {
  const parser = hermes.createParser({ tools: BENCH_TOOLS });
  const calls: BenchCall[] = [];
  const content: string[] = [];
  const take = (events: ParserEvent[]) => {
    for (const ev of events) {
      if (ev.type === "call-end") calls.push({ name: ev.call.name, arguments: ev.call.arguments });
      else if (collect && ev.type === "content") content.push(ev.text);
    }
  };
  for (const chunk of chunks) take(parser.push(chunk));
  take(parser.end());
  return { calls, content: content.join("") };
}

/**
 * The same, slicing each chunk off the text as it is pushed (fresh strings, as from a socket): for the scaling
 * test, so that the 10× run does not also carry 4 M pre-cut chunk strings on the heap, which slows every GC.
 */
function runToolbridgeSlicing(text: string, offsets: Uint32Array): number {
  const parser = hermes.createParser({ tools: BENCH_TOOLS });
  let calls = 0;
  for (let k = 0; k + 1 < offsets.length; k++) {
    for (const ev of parser.push(text.slice(offsets[k], offsets[k + 1]))) if (ev.type === "call-end") calls++;
  }
  for (const ev of parser.end()) if (ev.type === "call-end") calls++;
  return calls;
}

type Part = LanguageModelV3StreamPart;

function streamParts(chunks: readonly string[]): Part[] {
  const parts: Part[] = [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t0" },
  ];
  for (const delta of chunks) parts.push({ type: "text-delta", id: "t0", delta });
  parts.push({ type: "text-end", id: "t0" });
  parts.push({
    type: "finish",
    finishReason: { unified: "stop", raw: "stop" },
    usage: {
      inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: chunks.length, text: chunks.length, reasoning: 0 },
    },
  });
  return parts;
}

/** toolbridge as a one-stage AI SDK middleware: parser events mapped onto the SDK's stream parts. */
const toolbridgeMiddleware: LanguageModelV3Middleware = {
  specificationVersion: "v3",
  wrapStream: async ({ doStream }) => {
    const { stream, ...rest } = await doStream();
    const parser = hermes.createParser({ tools: BENCH_TOOLS });
    const ids: string[] = [];
    let textId: string | null = null;
    let textCount = 0;
    let sawCall = false;
    const emit = (events: ParserEvent[], out: TransformStreamDefaultController<Part>) => {
      for (const ev of events) {
        switch (ev.type) {
          case "content":
            if (textId === null) {
              textId = `txt${textCount++}`;
              out.enqueue({ type: "text-start", id: textId });
            }
            out.enqueue({ type: "text-delta", id: textId, delta: ev.text });
            break;
          case "call-start":
            if (textId !== null) out.enqueue({ type: "text-end", id: textId });
            textId = null;
            ids[ev.index] = ev.id;
            out.enqueue({ type: "tool-input-start", id: ev.id, toolName: ev.name });
            break;
          case "call-args-delta":
            out.enqueue({ type: "tool-input-delta", id: ids[ev.index]!, delta: ev.text });
            break;
          case "call-end":
            sawCall = true;
            out.enqueue({ type: "tool-input-end", id: ev.call.id });
            out.enqueue({
              type: "tool-call",
              toolCallId: ev.call.id,
              toolName: ev.call.name,
              input: JSON.stringify(ev.call.arguments),
            });
            break;
          default:
            break;
        }
      }
    };
    const transform = new TransformStream<Part, Part>({
      transform(part, out) {
        if (part.type === "text-delta") emit(parser.push(part.delta), out);
        else if (part.type === "finish") {
          emit(parser.end(), out);
          if (textId !== null) out.enqueue({ type: "text-end", id: textId });
          textId = null;
          out.enqueue(
            sawCall ? { ...part, finishReason: { unified: "tool-calls", raw: part.finishReason.raw } } : part,
          );
        } else if (part.type !== "text-start" && part.type !== "text-end") out.enqueue(part);
      },
    });
    return { ...rest, stream: stream.pipeThrough(transform) };
  },
};

/** `stages` pass-through TransformStreams: what the web-stream plumbing alone costs. */
function identityMiddleware(stages: number): LanguageModelV3Middleware {
  return {
    specificationVersion: "v3",
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream();
      let s = stream;
      for (let k = 0; k < stages; k++) s = s.pipeThrough(new TransformStream<Part, Part>());
      return { ...rest, stream: s };
    },
  };
}

/** The harness alone: `wrapLanguageModel` with nothing to do (it still adapts the V3 model's stream to V4). */
const NO_MIDDLEWARE: LanguageModelV3Middleware = { specificationVersion: "v3" };

const SDK_TOOLS = BENCH_TOOLS.map((t) => ({
  type: "function" as const,
  name: t.name,
  description: t.description,
  inputSchema: t.inputSchema as Record<string, unknown>,
}));

/** Drives `middleware` (or none) over the parts through the AI SDK's mock model and drains the result. */
async function runThroughSdk(
  parts: readonly Part[],
  middleware: LanguageModelV3Middleware,
  collect: boolean,
): Promise<RunResult & { parts: number }> {
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({ chunks: [...parts], initialDelayInMs: null, chunkDelayInMs: null }),
    }),
  });
  // V3 middleware (what 4.1.26 ships) runs unchanged under ai 7, whose type wants V4 (V3→V4 parts are additive).
  const wrapped = wrapLanguageModel({ model, middleware: middleware as unknown as LanguageModelMiddleware });
  const { stream } = await wrapped.doStream({
    prompt: [{ role: "user", content: [{ type: "text", text: "Do the work." }] }],
    tools: SDK_TOOLS,
  });
  const reader = stream.getReader();
  const calls: BenchCall[] = [];
  const content: string[] = [];
  let count = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    count++;
    if (value.type === "tool-call") {
      calls.push({ name: value.toolName, arguments: JSON.parse(value.input) as Record<string, unknown> });
    } else if (collect && value.type === "text-delta") content.push(value.delta);
  }
  return { calls, content: content.join(""), parts: count };
}

/** 4.1.26's hermes stream transformer, called directly (its `TransformStream` captured), without web streams. */
async function runAiSdkParserOnly(parts: readonly Part[]): Promise<RunResult> {
  type Transformer = { transform(part: Part, controller: { enqueue(p: Part): void }): void };
  const Original = globalThis.TransformStream;
  let transformer: Transformer | undefined;
  globalThis.TransformStream = class {
    constructor(t: Transformer) {
      transformer = t;
    }
  } as unknown as typeof TransformStream;
  try {
    aiSdkHermesProtocol().createStreamParser({ tools: SDK_TOOLS, options: {} });
  } finally {
    globalThis.TransformStream = Original;
  }
  const calls: BenchCall[] = [];
  const controller = {
    enqueue(p: Part) {
      if (p.type === "tool-call")
        calls.push({ name: p.toolName, arguments: JSON.parse(p.input) as Record<string, unknown> });
    },
  };
  for (const part of parts) transformer!.transform(part, controller);
  // It schedules a progress check (setTimeout) per chunk inside a call: let those run too.
  await new Promise((resolve) => setTimeout(resolve, 0));
  return { calls, content: "" };
}

/** Counts `pipeThrough` stages built while `fn` sets a stream up. */
async function countStages(fn: () => Promise<unknown>): Promise<number> {
  const proto = ReadableStream.prototype as { pipeThrough: (...args: unknown[]) => unknown };
  const original = proto.pipeThrough;
  let stages = 0;
  proto.pipeThrough = function (this: unknown, ...args: unknown[]) {
    stages++;
    return original.apply(this, args);
  };
  try {
    await fn();
  } finally {
    proto.pipeThrough = original;
  }
  return stages;
}

// --- measurement ------------------------------------------------------------------------------------------------

/**
 * CPU time of this process (user + system) in ms. Everything measured runs in-process without waiting (streams
 * without delays), so on an idle machine this equals wall time; on a loaded one it leaves out time spent
 * preempted by other processes, which would otherwise swamp the ratios.
 */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * The least CPU times of `small` and `large`, measured in alternating rounds (at least `rounds` of each, until
 * `spendMs` of CPU time were spent) after a warm-up of each. On a shared machine other processes only ever add time,
 * and so does the collector's background work left from a previous measurement (process CPU time counts its
 * threads): a cheap pattern parses 1 MB in ~6 ms, where one such pause decided a median of 3. Alternating puts both
 * sizes under the same load; the minimum over enough rounds estimates the work itself.
 */
async function bestPair(
  rounds: number,
  spendMs: number,
  small: () => unknown,
  large: () => unknown,
): Promise<[number, number]> {
  await small();
  await large();
  const mins: [number, number] = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  const start = cpuMs();
  for (let i = 0; i < rounds || cpuMs() - start < spendMs; i++) {
    for (const k of [0, 1] as const) {
      const t0 = cpuMs();
      await (k === 0 ? small() : large());
      mins[k] = Math.min(mins[k], cpuMs() - t0);
    }
  }
  return mins;
}

async function median(rounds: number, warmup: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < warmup; i++) await fn();
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = cpuMs();
    await fn();
    times.push(cpuMs() - t0);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

function sameCalls(label: string, got: readonly BenchCall[], want: readonly BenchCall[]): boolean {
  if (got.length !== want.length) {
    console.log(`  ✗ ${label}: ${got.length} calls, expected ${want.length}`);
    return false;
  }
  for (let i = 0; i < want.length; i++) {
    if (!isDeepStrictEqual(got[i], want[i])) {
      console.log(`  ✗ ${label}: call ${i} differs: ${JSON.stringify(got[i]).slice(0, 200)}`);
      return false;
    }
  }
  return true;
}

const ms = (t: number) => `${t.toFixed(1)} ms`;
const nsPerChar = (t: number, chars: number) => `${((t * 1e6) / chars).toFixed(1)} ns/char`;
const ratio = (x: number) => `${x.toFixed(2)}×`;
const verdict = (ok: boolean) => (ok ? "met" : "NOT met");

const rows: [string, string, string, string][] = [];
let section = "";
const heading = (id: string, title: string) => {
  section = id;
  console.log(`\n(${id}) ${title}`);
};
const row = (what: string, value: string, note = "") => {
  rows.push([section, what, value, note]);
  console.log(`  ${what}: ${value}${note ? `  (${note})` : ""}`);
};

/** The adversarial patterns for one format: its call-start markers repeated, and runs of `{`, `[`, `<`. */
function adversarialUnits(p: ToolCallProtocol): [string, string][] {
  const units: [string, string][] = p.callStartMarkers.map((m) => [`${JSON.stringify(m)}×n`, m]);
  for (const c of ["{", "[", "<"]) units.push([`${c}×n`, c]);
  return units;
}

/** One parse of `unit` repeated to `size` characters, pushed in 3-character chunks sliced as they go. */
function runAdversarial(p: ToolCallProtocol, unit: string, size: number): number {
  const text = unit.repeat(Math.ceil(size / unit.length));
  const parser = p.createParser({});
  let events = 0;
  for (let i = 0; i < text.length; i += 3) events += parser.push(text.slice(i, i + 3)).length;
  return events + parser.end().length;
}

async function adversarialSection(): Promise<boolean> {
  heading(
    "d",
    `adversarial input, every format: ${ADV_SIZE / 1e6} MB → ${(4 * ADV_SIZE) / 1e6} MB (3-char chunks), worst pattern`,
  );
  let all = true;
  const only = process.env.BENCH_FORMATS?.split(",");
  for (const p of listProtocols()) {
    if (only && !only.includes(p.id)) continue;
    let worst = { ratio: 0, what: "", perChar: 0 };
    for (const [what, unit] of adversarialUnits(p)) {
      // Best of alternating rounds after a warm-up at each size (a few ms at 1× is easily skewed by a JIT tier-up,
      // the first 4× round by the heap growing).
      const [t1, t4] = await bestPair(
        4,
        500,
        () => runAdversarial(p, unit, ADV_SIZE),
        () => runAdversarial(p, unit, 4 * ADV_SIZE),
      );
      const r = t4 / Math.max(t1, 1e-6);
      if (r > worst.ratio) worst = { ratio: r, what, perChar: (t4 * 1e6) / (4 * ADV_SIZE) };
    }
    const ok = worst.ratio <= GOAL_ADV_RATIO;
    all &&= ok;
    row(
      `${p.id}: ${ADV_SIZE / 1e6} MB → ${(4 * ADV_SIZE) / 1e6} MB`,
      ratio(worst.ratio),
      `${worst.what}, ${worst.perChar.toFixed(0)} ns/char at 4 MB; goal ≤ ${GOAL_ADV_RATIO}×: ${verdict(ok)}`,
    );
  }
  return all;
}

async function main(): Promise<void> {
  const t0 = performance.now();
  console.log(
    `bench:parse-stream — node ${process.version}, seed ${SEED}${implDir ? `, impl ${implDir}` : ""}`,
  );
  if (process.env.BENCH_ONLY === "d") {
    const ok = await adversarialSection();
    console.log(`\n| | measurement | value | note |\n|---|---|---|---|`);
    for (const [id, what, value, note] of rows) console.log(`| ${id} | ${what} | ${value} | ${note} |`);
    console.log(ok ? "every format linear" : "NOT LINEAR (see above)");
    return;
  }

  const small = generateOutput(SEED, SIZE);
  const big = generateOutput(SEED + 1, SIZE * 10);
  const smallOffsets = chunkOffsets(small.text, SEED);
  const bigOffsets = chunkOffsets(big.text, SEED + 1);
  const smallChunks = chunkText(small.text, smallOffsets);
  const longArgs = small.calls.filter((c) => typeof c.arguments.content === "string").length;
  console.log(
    `output: ${small.text.length.toLocaleString()} chars, ${small.calls.length} calls (${longArgs} with 1–8 KB string arguments), ${smallChunks.length.toLocaleString()} chunks of 1–4 chars; 10×: ${big.text.length.toLocaleString()} chars, ${(bigOffsets.length - 1).toLocaleString()} chunks`,
  );

  // Correctness first: every side finds the expected calls.
  let ok = true;
  const ours = runToolbridge(smallChunks, true);
  ok = sameCalls("toolbridge 1×", ours.calls, small.calls) && ok;
  const bigCalls = runToolbridge(chunkText(big.text, bigOffsets), false).calls;
  ok = sameCalls("toolbridge 10×", bigCalls, big.calls) && ok;

  heading("a", "linear scaling — toolbridge, each chunk sliced off as it is pushed");
  const tSmallSliced = await median(7, 2, () => runToolbridgeSlicing(small.text, smallOffsets));
  const tBig = await median(3, 1, () => runToolbridgeSlicing(big.text, bigOffsets));
  const growth = tBig / big.text.length / (tSmallSliced / small.text.length);
  row("toolbridge 1×", ms(tSmallSliced), nsPerChar(tSmallSliced, small.text.length));
  row("toolbridge 10×", ms(tBig), nsPerChar(tBig, big.text.length));
  row(
    "per-char cost growth 10×/1×",
    ratio(growth),
    `goal ≤ ${GOAL_LINEAR}×: ${verdict(growth <= GOAL_LINEAR)}`,
  );
  const tSmall = await median(7, 2, () => runToolbridge(smallChunks, false));
  row("toolbridge 1×, pre-cut chunks (as below)", ms(tSmall), nsPerChar(tSmall, small.text.length));
  if (process.env.BENCH_ONLY === "a") {
    // quick loop while working on the parser: toolbridge alone
    const large = largeArgumentOutput(SEED + 2, LARGE_ARG);
    const largeChunks = chunkText(large.text, chunkOffsets(large.text, SEED + 2));
    ok = sameCalls("toolbridge large", runToolbridge(largeChunks, false).calls, large.calls) && ok;
    const tLargeOurs = await median(15, 3, () => runToolbridge(largeChunks, false));
    row(
      `toolbridge, one ${LARGE_ARG / 1000} KB argument`,
      ms(tLargeOurs),
      nsPerChar(tLargeOurs, large.text.length),
    );
    console.log(ok ? "all calls matched" : "CALL MISMATCH (see above)");
    if (!ok) process.exitCode = 1;
    return;
  }

  const parts = streamParts(smallChunks);
  const theirs = await runThroughSdk(parts, hermesToolMiddleware, true);
  ok = sameCalls("@ai-sdk-tool/parser 4.1.26 middleware", theirs.calls, small.calls) && ok;
  const oursSdk = await runThroughSdk(parts, toolbridgeMiddleware, true);
  ok = sameCalls("toolbridge middleware", oursSdk.calls, small.calls) && ok;
  ok = sameCalls("4.1.26 parser only", (await runAiSdkParserOnly(parts)).calls, small.calls) && ok;
  console.log(
    `\ncalls: ${ok ? "all sides found the same" : "MISMATCH"} ${small.calls.length} calls; content ${ours.content === theirs.content ? "identical" : `differs (toolbridge ${ours.content.length} chars, 4.1.26 ${theirs.content.length} chars)`}`,
  );

  const theirStages = await countStages(() => runThroughSdk(parts.slice(0, 3), hermesToolMiddleware, false));
  const ourStages = await countStages(() => runThroughSdk(parts.slice(0, 3), toolbridgeMiddleware, false));
  const bareStages = await countStages(() => runThroughSdk(parts.slice(0, 3), NO_MIDDLEWARE, false));

  heading("b", "vs @ai-sdk-tool/parser@4.1.26 hermes, same chunks");
  // (the verification runs above warmed these up)
  const tTheirs = await median(3, 0, () => runThroughSdk(parts, hermesToolMiddleware, false));
  const tOursSdk = await median(3, 0, () => runThroughSdk(parts, toolbridgeMiddleware, false));
  const tTheirsOnly = await median(3, 0, () => runAiSdkParserOnly(parts));
  const tBare = await median(3, 0, () => runThroughSdk(parts, NO_MIDDLEWARE, false));
  const tIdentity = await median(3, 0, () =>
    runThroughSdk(parts, identityMiddleware(theirStages - bareStages), false),
  );
  row(
    "stages (pipeThrough per stream)",
    `4.1.26 ${theirStages}, toolbridge ${ourStages}, no middleware ${bareStages}`,
  );
  row("4.1.26 middleware through the SDK", ms(tTheirs), nsPerChar(tTheirs, small.text.length));
  row("toolbridge middleware through the SDK", ms(tOursSdk), nsPerChar(tOursSdk, small.text.length));
  row("4.1.26 parser only (transformer, no streams)", ms(tTheirsOnly));
  row("SDK harness, empty middleware", ms(tBare), `${bareStages} stage: V3→V4 adapter`);
  row(
    `SDK harness, ${theirStages - bareStages} identity stages`,
    ms(tIdentity),
    "what 4.1.26's stages cost before any parsing",
  );
  const speedup = tTheirs / tSmall;
  row(
    "ratio: 4.1.26 middleware / toolbridge push loop",
    ratio(speedup),
    `goal ≥ ${GOAL_SPEEDUP}×: ${verdict(speedup >= GOAL_SPEEDUP)}`,
  );
  row("ratio: both through the SDK (4.1.26 / toolbridge)", ratio(tTheirs / tOursSdk));
  row("ratio: parsing only (4.1.26 transformer / toolbridge)", ratio(tTheirsOnly / tSmall));
  row(
    "ratio: above harness (4.1.26 − harness) / (toolbridge − harness)",
    ratio((tTheirs - tBare) / Math.max(1e-9, tOursSdk - tBare)),
  );

  heading("b′", `one call with a ${LARGE_ARG / 1000} KB string argument`);
  const large = largeArgumentOutput(SEED + 2, LARGE_ARG);
  const largeChunks = chunkText(large.text, chunkOffsets(large.text, SEED + 2));
  const largeParts = streamParts(largeChunks);
  ok = sameCalls("toolbridge large", runToolbridge(largeChunks, false).calls, large.calls) && ok;
  const tLargeOurs = await median(15, 3, () => runToolbridge(largeChunks, false));
  const tLargeOursSdk = await median(3, 1, () => runThroughSdk(largeParts, toolbridgeMiddleware, false));
  // 4.1.26 rescans the growing call body on every chunk (quadratic): one round, checked as it goes.
  let theirsLarge: RunResult = { calls: [], content: "" };
  const tLargeTheirs = await median(1, 0, async () => {
    theirsLarge = await runThroughSdk(largeParts, hermesToolMiddleware, false);
  });
  ok = sameCalls("4.1.26 large", theirsLarge.calls, large.calls) && ok;
  row(
    "toolbridge push loop",
    ms(tLargeOurs),
    `${nsPerChar(tLargeOurs, large.text.length)}, ${largeChunks.length.toLocaleString()} chunks`,
  );
  row("toolbridge middleware through the SDK", ms(tLargeOursSdk));
  row("4.1.26 middleware through the SDK (1 round)", ms(tLargeTheirs));
  row("ratio: 4.1.26 middleware / toolbridge push loop", ratio(tLargeTheirs / tLargeOurs));
  row("ratio: both through the SDK", ratio(tLargeTheirs / tLargeOursSdk));

  heading("c", "vs one JSON.parse of the same prose and calls as a JSON document");
  const tJson = await median(15, 3, () => JSON.parse(small.json));
  row(
    "JSON.parse",
    ms(tJson),
    `${small.json.length.toLocaleString()} chars, ${nsPerChar(tJson, small.json.length)}`,
  );
  const perChar = tSmall / small.text.length / (tJson / small.json.length);
  row("ratio: toolbridge streaming (1–4 char chunks) / JSON.parse, per char", ratio(perChar));
  const tOnePush = await median(7, 2, () => runToolbridge([small.text], false));
  row("toolbridge, the whole output in one push", ms(tOnePush), nsPerChar(tOnePush, small.text.length));
  row(
    "ratio: toolbridge one push / JSON.parse, per char",
    ratio(tOnePush / small.text.length / (tJson / small.json.length)),
  );

  if (!(await adversarialSection())) console.log("  ✗ some format is not linear on adversarial input");

  console.log(`\n| | measurement | value | note |\n|---|---|---|---|`);
  for (const [id, what, value, note] of rows) console.log(`| ${id} | ${what} | ${value} | ${note} |`);
  console.log(
    `\n${ok ? "all calls matched" : "CALL MISMATCH (see above)"}; finished in ${((performance.now() - t0) / 1000).toFixed(0)} s`,
  );
  if (!ok) process.exitCode = 1;
}

await main();
