/**
 * `npm run eval-model [-- --model file.gguf] [--held-out file.jsonl | --seed 7 --count 260] [--limit N] [--every K] [--verbose]`: the held-out split through the real
 * `toolbridge run` path — the run command's own settings resolution (`cliAgentSettings`: with no model flag that is
 * the bundled default), `createCliAgent` (runtime tools, memory store, the llama backend in text-protocol mode with
 * the model's protocol hints and the call-body grammar) and the agent loop — one run per request, in-process so the
 * model loads once; each request sees a fresh memory for note_save / memory_search (see `RequestMemoryStore`). Prints
 * the four acceptance figures; exit 1 when one misses its goal.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type { AgentCommandOptions } from "../../src/cli/commands/run.js";
import { cliAgentSettings, createCliAgent } from "../../src/cli/commands/run.js";
import { LazyDatabase } from "../../src/cli/open-store.js";
import { bundledModelPath } from "../../src/models/bundled-model.js";
import { createRandom } from "../../src/models/gguf/make-test-model.js";
import { resultToText } from "../../src/protocols/core/render-helpers.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { buildDataset, type HeldOutRequest, seedMemory } from "./build-dataset.js";

/**
 * The eval's database: runs are stored as `toolbridge run` stores them, but the memory tools (note_save,
 * memory_search) see a fresh memory per request, seeded as the training data seeds one. Each request is then judged on
 * its own — in one shared memory, earlier requests' notes and stored questions pile into later searches' results
 * and the figures depend on the order of the requests.
 */
class RequestMemoryStore extends SqliteStore {
  #memory: SqliteStore | undefined;

  async freshMemory(seed: number, kind: HeldOutRequest["kind"], query: string): Promise<void> {
    await this.closeMemory();
    const memory = new SqliteStore(":memory:");
    this.#memory = memory;
    if (kind === "note_save" || kind === "memory_search")
      await seedMemory(
        (title, content) => memory.saveNote({ title, content, tags: [] }),
        createRandom(seed),
        kind,
        query,
      );
  }

  async closeMemory(): Promise<void> {
    await this.#memory?.close();
    this.#memory = undefined;
  }

  override saveNote(note: Parameters<SqliteStore["saveNote"]>[0]): ReturnType<SqliteStore["saveNote"]> {
    return this.#memory ? this.#memory.saveNote(note) : super.saveNote(note);
  }

  override searchMemory(
    ...args: Parameters<SqliteStore["searchMemory"]>
  ): ReturnType<SqliteStore["searchMemory"]> {
    return this.#memory ? this.#memory.searchMemory(...args) : super.searchMemory(...args);
  }
}

export interface RequestOutcome {
  request: HeldOutRequest;
  calls: { name: string; arguments: Record<string, unknown> }[];
  results: string[];
  answer: string;
  /** The tool rejected the first call (an unknown zone, say): its answer then quotes an error, not a result. */
  firstCallFailed?: boolean;
  error?: string;
}

export interface EvalFigures {
  toolRequests: number;
  chatRequests: number;
  rightTool: number;
  exactArguments: number;
  answerHasResult: number;
  noToolWhenNoneNeeded: number;
  /** First calls the tool rejected, and how many of those answers quoted the error back (not counted above). */
  rejectedFirstCalls: number;
  answersQuotingRejection: number;
}

/** What the final answer must contain: a roll's total, otherwise the tool's whole result text. */
export function expectedResultText(tool: string, result: string): string {
  if (tool === "roll_dice") return /(-?\d+)\s*$/.exec(result)?.[1] ?? result.trim();
  return result.trim();
}

function sameJson(a: unknown, b: unknown): boolean {
  const canon = (v: unknown): unknown =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>)
            .sort(([x], [y]) => (x < y ? -1 : 1))
            .map(([k, w]) => [k, canon(w)]),
        )
      : Array.isArray(v)
        ? v.map(canon)
        : v;
  return JSON.stringify(canon(a)) === JSON.stringify(canon(b));
}

export function score(outcomes: readonly RequestOutcome[]): EvalFigures {
  const f: EvalFigures = {
    toolRequests: 0,
    chatRequests: 0,
    rightTool: 0,
    exactArguments: 0,
    answerHasResult: 0,
    noToolWhenNoneNeeded: 0,
    rejectedFirstCalls: 0,
    answersQuotingRejection: 0,
  };
  for (const o of outcomes) {
    const expected = o.request.expected;
    if (!expected) {
      f.chatRequests++;
      if (o.calls.length === 0 && !o.error) f.noToolWhenNoneNeeded++;
      continue;
    }
    f.toolRequests++;
    const first = o.calls[0];
    if (first?.name === expected.name) f.rightTool++;
    if (first?.name === expected.name && sameJson(first.arguments, expected.arguments)) f.exactArguments++;
    const result = o.results[0];
    const quoted =
      first !== undefined &&
      result !== undefined &&
      o.answer.includes(expectedResultText(first.name, result));
    // A rejected call's error quoted back is not an answer: only a result the tool gave counts.
    if (o.firstCallFailed) {
      f.rejectedFirstCalls++;
      if (quoted) f.answersQuotingRejection++;
    } else if (quoted) f.answerHasResult++;
  }
  return f;
}

const pct = (n: number, d: number) => (d === 0 ? "n/a" : `${((100 * n) / d).toFixed(1)}%`);

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      model: { type: "string" },
      "held-out": { type: "string" },
      seed: { type: "string", default: "7" },
      count: { type: "string", default: "260" },
      limit: { type: "string" },
      every: { type: "string", default: "1" },
      verbose: { type: "boolean", default: false },
    },
  });
  // The held-out split is drawn before any training conversation, so the seed alone reproduces it: a fresh clone
  // needs no .train/ folder to evaluate.
  let requests = values["held-out"]
    ? readFileSync(values["held-out"], "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as HeldOutRequest)
    : (await buildDataset({ seed: Number(values.seed), train: 0, heldOut: Number(values.count) })).heldOut;
  const every = Number(values.every);
  requests = requests.filter((_, i) => i % every === 0);
  if (values.limit) requests = requests.slice(0, Number(values.limit));

  const dir = mkdtempSync(path.join(os.tmpdir(), "toolbridge-eval-"));
  const store = new RequestMemoryStore(path.join(dir, "eval.db"));
  // The run command's own resolution: no --model means the bundled default (when the CLI has wired it), else
  // exactly the flags the default stands for.
  const flags: AgentCommandOptions = values.model ? { model: values.model } : {};
  // No token cap of its own: `toolbridge run`'s default (1,024) — a cap here would cut long answers (a memory search
  // that found five notes) that the real command gives in full.
  let settings: ReturnType<typeof cliAgentSettings>;
  try {
    settings = cliAgentSettings(flags, "run");
  } catch {
    settings = cliAgentSettings({ model: bundledModelPath(), protocol: "hermes" }, "run");
  }
  if (values.model) settings = cliAgentSettings({ model: values.model, protocol: "hermes" }, "run");
  settings.autoApprove = true;
  const cli = await createCliAgent(settings, LazyDatabase.ofSqlite(store));
  const started = performance.now();
  const outcomes: RequestOutcome[] = [];
  try {
    for (const request of requests) {
      const outcome: RequestOutcome = { request, calls: [], results: [], answer: "" };
      const query = String(request.expected?.arguments.query ?? request.expected?.arguments.title ?? "");
      await store.freshMemory(Number(values.seed) * 100_003 + request.id, request.kind, query);
      try {
        const handle = cli.agent.run(request.request);
        for await (const event of handle) {
          if (event.type === "call-finished")
            outcome.calls.push({ name: event.name, arguments: event.arguments });
          if (event.type === "tool-result") {
            outcome.results.push(resultToText(event.result));
            if (outcome.results.length === 1) outcome.firstCallFailed = event.result.isError === true;
          }
        }
        const view = await handle.result;
        outcome.answer = view.answer ?? "";
        if (view.status !== "finished") outcome.error = `${view.status}: ${view.stopReason}`;
      } catch (error) {
        outcome.error = (error as Error).message;
      }
      outcomes.push(outcome);
      if (values.verbose)
        process.stderr.write(
          `${JSON.stringify({ q: request.request, expected: request.expected, calls: outcome.calls, answer: outcome.answer, error: outcome.error, failed: outcome.firstCallFailed })}\n`,
        );
    }
  } finally {
    await cli.close();
    await store.closeMemory();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const f = score(outcomes);
  const seconds = (performance.now() - started) / 1000;
  const lines = [
    `held-out requests: ${outcomes.length} (${f.toolRequests} need a tool, ${f.chatRequests} do not), ${seconds.toFixed(0)} s through toolbridge run`,
    `right tool chosen:                ${pct(f.rightTool, f.toolRequests)} (${f.rightTool}/${f.toolRequests}, goal ≥95%)`,
    `arguments exactly right:          ${pct(f.exactArguments, f.toolRequests)} (${f.exactArguments}/${f.toolRequests}, goal ≥90%)`,
    `final answer contains the result: ${pct(f.answerHasResult, f.toolRequests)} (${f.answerHasResult}/${f.toolRequests}, goal ≥90%)`,
    `no tool for no-tool requests:     ${pct(f.noToolWhenNoneNeeded, f.chatRequests)} (${f.noToolWhenNoneNeeded}/${f.chatRequests}, goal ≥95%)`,
    `(first calls the tool rejected: ${f.rejectedFirstCalls}; answers quoting such an error: ${f.answersQuotingRejection})`,
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
  const byKind = new Map<string, RequestOutcome[]>();
  for (const o of outcomes) byKind.set(o.request.kind, [...(byKind.get(o.request.kind) ?? []), o]);
  for (const [kind, list] of byKind) {
    const k = score(list);
    const d =
      kind === "chat"
        ? `no tool ${pct(k.noToolWhenNoneNeeded, k.chatRequests)}`
        : `tool ${pct(k.rightTool, k.toolRequests)}, args ${pct(k.exactArguments, k.toolRequests)}, answer ${pct(k.answerHasResult, k.toolRequests)}`;
    process.stdout.write(`  ${kind.padEnd(14)} ${String(list.length).padStart(3)}: ${d}\n`);
  }
  const ok =
    f.rightTool >= 0.95 * f.toolRequests &&
    f.exactArguments >= 0.9 * f.toolRequests &&
    f.answerHasResult >= 0.9 * f.toolRequests &&
    f.noToolWhenNoneNeeded >= 0.95 * f.chatRequests;
  process.exitCode = ok ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(2);
  });
}
