/**
 * `npm run eval-model [-- --model file.gguf] [--set template|everyday|outside-ascii|client-tools|client-tools-check|
 * all] [--limit N] [--every K] [--verbose] [--json out.json]`: the model on three sets (and two check sets), each
 * through the code path a user's request takes.
 * - template: the held-out split of the training generator (`--held-out file.jsonl | --seed 7 --count 260`), phrasings
 *   and values the model never saw, through `toolbridge run`'s own path — the run command's settings resolution
 *   (`cliAgentSettings`: with no model flag that is the bundled default), `createCliAgent` (runtime tools, memory
 *   store, the llama backend in text mode with the model's hints and the call-body grammar) and the agent loop; each
 *   request with a fresh memory seeded as training seeds one (see `EvalStore`);
 * - everyday: the hand-written `sets/everyday.jsonl` (everyday-set.ts), the same path, earlier turns of a chat given
 *   as a stored conversation and notes put in memory first; outside-ascii: `sets/outside-ascii-check.jsonl`, 16 more
 *   the same way whose names, places and signs have letters outside ASCII ("Sigrún", "Cuiabá", "84 ÷ 7"), none of
 *   them words of the training generator's but those of "remember that my café is Zoë's on 5th" (no goal);
 * - client-tools: `sets/client-tools.jsonl`, OpenAI requests with a client's own tools to `serve`'s `/v1` (the real
 *   server, the official openai client); client-tools-check: `sets/client-tools-check.jsonl`, 24 more the same way,
 *   written to check span-copied values on requests they were not designed on (no goal).
 * Prints the figures of each; exit 1 when one misses its goal.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { type AgentCommandOptions, cliAgentSettings } from "../../src/cli/agent-command-options.js";
import { createCliAgent } from "../../src/cli/create-cli-agent.js";
import { LazyDatabase } from "../../src/cli/open-store.js";
import type { AgentMessage } from "../../src/core/agent-message.js";
import { bundledModelPath } from "../../src/models/bundled-model.js";
import { createRandom } from "../../src/models/gguf/make-test-model.js";
import { resultToText } from "../../src/protocols/core/render-helpers.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { createCalculatorTool, createDateTimeTools, createDiceTool } from "../../src/tools/builtin/index.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { buildDataset, type HeldOutRequest, seedMemory } from "./build-dataset.js";
import {
  CLIENT_TOOL_CHECK_SET,
  CLIENT_TOOL_SET,
  type ClientToolFigures,
  runClientToolSet,
} from "./client-tools-set.js";
import {
  type CallOutcome,
  type Defaults,
  EVERYDAY_SET,
  type EverydayFigures,
  type EverydayOutcome,
  type EverydayVerdict,
  type ExpectedCall,
  everydayGoalsMet,
  judge,
  loadEverydaySet,
  OUTSIDE_ASCII_SET,
  summarize,
} from "./everyday-set.js";

/**
 * The eval's database: runs are stored as `toolbridge run` stores them, but the memory tools (note_save,
 * memory_search) see a fresh memory per request, seeded as the training data seeds one or with an item's notes. Each
 * request is then judged on its own — in one shared memory, earlier requests' notes and stored questions pile into
 * later searches' results and the figures depend on the order of the requests. A conversation may be given earlier
 * exchanges (`script`): the agent reads them as the stored start of the chat.
 */
class EvalStore extends SqliteStore {
  #memory: SqliteStore | undefined;
  readonly #scripts = new Map<string, AgentMessage[]>();

  async freshMemory(seed: (save: (title: string, content: string) => Promise<unknown>) => Promise<void>) {
    await this.closeMemory();
    const memory = new SqliteStore(":memory:");
    this.#memory = memory;
    await seed((title, content) => memory.saveNote({ title, content, tags: [] }));
  }

  async closeMemory(): Promise<void> {
    await this.#memory?.close();
    this.#memory = undefined;
  }

  script(conversationId: string, messages: AgentMessage[]): void {
    this.#scripts.set(conversationId, messages);
  }

  override async listMessages(conversationId: string): Promise<AgentMessage[]> {
    return [...(this.#scripts.get(conversationId) ?? []), ...(await super.listMessages(conversationId))];
  }

  override saveNote(note: Parameters<SqliteStore["saveNote"]>[0]): ReturnType<SqliteStore["saveNote"]> {
    return this.#memory ? this.#memory.saveNote(note) : super.saveNote(note);
  }

  override async searchMemory(
    ...args: Parameters<SqliteStore["searchMemory"]>
  ): ReturnType<SqliteStore["searchMemory"]> {
    const hits = await (this.#memory ? this.#memory.searchMemory(...args) : super.searchMemory(...args));
    // Every hit dated the same instant: the real time of saving is in the result the model reads, and it moved the
    // answers from run to run (template search answers 33–50 %), so two runs' figures could not be compared.
    return hits.map((hit) => ({ ...hit, createdAt: EVAL_SAVED_AT }));
  }
}

/** When every note and message a search finds in the eval was saved (see EvalStore.searchMemory). */
const EVAL_SAVED_AT = "2026-06-15T09:30:00.000Z";

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

type CliAgent = Awaited<ReturnType<typeof createCliAgent>>;

/** One request through the agent: the calls it made (with their results) and its answer. */
async function runRequest(
  cli: CliAgent,
  prompt: string,
  conversationId?: string,
): Promise<{ calls: CallOutcome[]; answer: string; error?: string }> {
  const started = performance.now();
  let steps = 0;
  const calls: CallOutcome[] = [];
  const byId = new Map<string, CallOutcome>();
  let answer = "";
  let error: string | undefined;
  try {
    const handle = cli.agent.run(prompt, conversationId ? { conversationId } : {});
    for await (const event of handle) {
      if (event.type === "step-started") steps++;
      if (event.type === "call-finished") {
        const call: CallOutcome = { name: event.name, arguments: event.arguments };
        calls.push(call);
        byId.set(event.callId, call);
      }
      if (event.type === "tool-result") {
        const call = byId.get(event.callId);
        if (call) {
          call.result = resultToText(event.result);
          call.isError = event.result.isError === true;
        }
      }
    }
    const view = await handle.result;
    answer = view.answer ?? "";
    if (view.status !== "finished") error = `${view.status}: ${view.stopReason}`;
  } catch (e) {
    error = (e as Error).message;
  }
  TURN_TIMES.push((performance.now() - started) / Math.max(1, steps));
  return { calls, answer, ...(error ? { error } : {}) };
}

/** Seconds of each model turn (a request's time over its steps: the call, then the answer). */
const TURN_TIMES: number[] = [];

function turnTimes(): string {
  const sorted = TURN_TIMES.splice(0).sort((a, b) => a - b);
  const at = (q: number) =>
    ((sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0) / 1000).toFixed(2);
  return `per model turn: median ${at(0.5)} s, 95th percentile ${at(0.95)} s, slowest ${at(1)} s`;
}

async function runTemplateSet(
  cli: CliAgent,
  store: EvalStore,
  requests: HeldOutRequest[],
  seed: number,
  verbose: boolean,
): Promise<{ figures: EvalFigures; byKind: Record<string, string>; ok: boolean }> {
  const outcomes: RequestOutcome[] = [];
  for (const request of requests) {
    const query = String(request.expected?.arguments.query ?? request.expected?.arguments.title ?? "");
    await store.freshMemory((save) =>
      request.kind === "note_save" || request.kind === "memory_search"
        ? seedMemory(save, createRandom(seed * 100_003 + request.id), request.kind, query)
        : Promise.resolve(),
    );
    const r = await runRequest(cli, request.request);
    const outcome: RequestOutcome = {
      request,
      calls: r.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
      results: r.calls.filter((c) => c.result !== undefined).map((c) => c.result as string),
      answer: r.answer,
      ...(r.calls[0] ? { firstCallFailed: r.calls[0].isError === true } : {}),
      ...(r.error ? { error: r.error } : {}),
    };
    outcomes.push(outcome);
    if (verbose)
      process.stderr.write(
        `${JSON.stringify({ q: request.request, expected: request.expected, calls: outcome.calls, answer: outcome.answer, error: outcome.error })}\n`,
      );
  }
  const f = score(outcomes);
  const byKind: Record<string, string> = {};
  const kinds = new Map<string, RequestOutcome[]>();
  for (const o of outcomes) kinds.set(o.request.kind, [...(kinds.get(o.request.kind) ?? []), o]);
  for (const [kind, list] of kinds) {
    const k = score(list);
    byKind[kind] =
      kind === "chat"
        ? `no tool ${pct(k.noToolWhenNoneNeeded, k.chatRequests)}`
        : `tool ${pct(k.rightTool, k.toolRequests)}, args ${pct(k.exactArguments, k.toolRequests)}, answer ${pct(k.answerHasResult, k.toolRequests)}`;
  }
  const ok =
    f.rightTool >= 0.95 * f.toolRequests &&
    f.exactArguments >= 0.9 * f.toolRequests &&
    f.answerHasResult >= 0.9 * f.toolRequests &&
    f.noToolWhenNoneNeeded >= 0.95 * f.chatRequests;
  return { figures: f, byKind, ok };
}

/**
 * The built-in tools outside the agent, with a fixed clock and seeded dice: to run an expected call and the model's
 * side by side, and for the earlier turns of a scripted chat.
 */
function toolsExecutor(now?: number): ToolExecutor {
  const registry = new ToolRegistry();
  registry.registerAll([
    createCalculatorTool(),
    createDiceTool({ random: createRandom(5) }),
    ...createDateTimeTools(now === undefined ? {} : { now: () => now }),
  ]);
  return new ToolExecutor(registry);
}

async function runEverydaySet(
  cli: CliAgent,
  store: EvalStore,
  verbose: boolean,
  filter: (i: number) => boolean,
  file = EVERYDAY_SET,
): Promise<{ figures: EverydayFigures; verdicts: EverydayVerdict[]; outcomes: EverydayOutcome[] }> {
  const items = loadEverydaySet(file).filter((_, i) => filter(i));
  const defaults: Defaults = {};
  for (const d of cli.agent.tools()) {
    const props = (d.tool.inputSchema.properties ?? {}) as Record<string, { default?: unknown }>;
    defaults[d.tool.name] = Object.fromEntries(
      Object.entries(props)
        .filter(([, p]) => p && typeof p === "object" && "default" in p)
        .map(([k, p]) => [k, p.default]),
    );
  }
  const judgeTools = toolsExecutor(Date.UTC(2026, 5, 15, 12, 0, 0));
  // The earlier turns of a scripted chat read a fixed clock too: with the real one a time in an earlier result changed
  // from run to run, and with it what the model saw (generation 4's junk calls after a tool turn: 5 or 7 of 8).
  const earlierTurnTools = toolsExecutor(Date.UTC(2026, 5, 15, 9, 30, 0));
  const resultOf = async (name: string, args: Record<string, unknown>) => {
    const r = await judgeTools.call(name, args);
    return r.isError ? `error: ${resultToText(r)}` : resultToText(r);
  };
  const outcomes: EverydayOutcome[] = [];
  const sameResults = new Map<string, boolean>();
  for (const [index, item] of items.entries()) {
    await store.freshMemory(async (save) => {
      for (const note of item.notes ?? []) await save(note.title, note.content);
    });
    let conversationId: string | undefined;
    const context: string[] = [];
    if (item.before?.length) {
      conversationId = `conv_everyday_${index}_${Date.now()}`;
      const messages: AgentMessage[] = [];
      for (const [n, turn] of item.before.entries()) {
        const id = `call_before_${n}`;
        const executed = await earlierTurnTools.call(turn.call.name, turn.call.arguments);
        const text = resultToText(executed);
        const answer = (turn.answer ?? "{result}").replace("{result}", text);
        messages.push(
          { role: "user", content: turn.user },
          {
            role: "assistant",
            content: "",
            toolCalls: [{ id, name: turn.call.name, arguments: turn.call.arguments }],
          },
          { role: "tool", callId: id, name: turn.call.name, result: executed },
          { role: "assistant", content: answer },
        );
        context.push(turn.user, text, answer);
      }
      store.script(conversationId, messages);
    }
    const r = await runRequest(cli, item.request, conversationId);
    const outcome: EverydayOutcome = { item, calls: r.calls, answer: r.answer, context: context.join("\n") };
    if (r.error) outcome.error = r.error;
    // `match: "result"` calls: what the tool gives for the model's arguments against the expected ones.
    for (const [i, e] of (item.expect ?? []).entries()) {
      const call = r.calls[i];
      if (e.match !== "result" || !call || call.name !== e.name) continue;
      const [want, got] = await Promise.all([
        resultOf(e.name, e.arguments),
        resultOf(call.name, call.arguments),
      ]);
      sameResults.set(`${item.id}/${i}`, !want.startsWith("error:") && want === got);
    }
    outcomes.push(outcome);
  }
  const verdicts = outcomes.map((o) =>
    judge(
      o,
      defaults,
      (e: ExpectedCall) => sameResults.get(`${o.item.id}/${(o.item.expect ?? []).indexOf(e)}`) === true,
    ),
  );
  if (verbose)
    for (const [i, o] of outcomes.entries()) {
      const v = verdicts[i] as EverydayVerdict;
      const marks = `${v.rightTool ? "T" : "-"}${v.exactArguments ? "A" : "-"}${v.statesOutcome ? "S" : "-"}${v.invented.length ? "I" : ""}${v.junkCall ? "J" : ""}`;
      process.stderr.write(
        `${o.item.id.padEnd(10)} ${marks.padEnd(5)} ${JSON.stringify(o.item.request)} → ${JSON.stringify(o.calls.map((c) => [c.name, c.arguments, c.result?.slice(0, 60)]))} ⇒ ${JSON.stringify(o.answer.slice(0, 160))}${o.error ? ` [${o.error}]` : ""}\n`,
      );
    }
  return { figures: summarize(verdicts), verdicts, outcomes };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      model: { type: "string" },
      set: { type: "string", default: "all" },
      "held-out": { type: "string" },
      seed: { type: "string", default: "7" },
      count: { type: "string", default: "260" },
      limit: { type: "string" },
      every: { type: "string", default: "1" },
      verbose: { type: "boolean", default: false },
      json: { type: "string" },
      // Copy-constrained string arguments on or off (default: the model's own default, by its size).
      "copy-arguments": { type: "string" },
      // Copied words in answers on or off (default: the model's own default, by its size).
      "copy-words": { type: "string" },
    },
  });
  const onOff = (v: string | undefined) => (v === undefined ? undefined : /^(true|on|1|yes)$/i.test(v));
  const copyArguments = onOff(values["copy-arguments"]);
  const copyWords = onOff(values["copy-words"]);
  const sets =
    values.set === "all"
      ? ["template", "everyday", "outside-ascii", "client-tools", "client-tools-check"]
      : values.set.split(",");
  const every = Number(values.every);
  const limit = values.limit ? Number(values.limit) : Number.POSITIVE_INFINITY;
  const filter = (i: number) => i % every === 0 && i / every < limit;
  const seed = Number(values.seed);
  const report: Record<string, unknown> = {};
  let ok = true;

  const dir = mkdtempSync(path.join(os.tmpdir(), "toolbridge-eval-"));
  const store = new EvalStore(path.join(dir, "eval.db"));
  // The run command's own resolution: no --model means the bundled default (when the CLI has wired it), else
  // exactly the flags the default stands for. No token cap of its own: `toolbridge run`'s default (1,024).
  const copy = {
    ...(copyArguments === undefined ? {} : { copyArguments }),
    ...(copyWords === undefined ? {} : { copyWords }),
  };
  const flags: AgentCommandOptions = values.model ? { model: values.model, ...copy } : copy;
  let settings: ReturnType<typeof cliAgentSettings>;
  try {
    settings = cliAgentSettings(flags, "run");
  } catch {
    settings = cliAgentSettings({ model: bundledModelPath(), protocol: "hermes", ...copy }, "run");
  }
  if (values.model) settings = cliAgentSettings({ model: values.model, protocol: "hermes", ...copy }, "run");
  settings.autoApprove = true;
  const cli = await createCliAgent(settings, LazyDatabase.ofSqlite(store));
  try {
    if (sets.includes("template")) {
      // The held-out split is drawn before any training conversation, so the seed alone reproduces it: a fresh clone
      // needs no .train/ folder to evaluate.
      const requests = (
        values["held-out"]
          ? readFileSync(values["held-out"], "utf8")
              .split("\n")
              .filter(Boolean)
              .map((l) => JSON.parse(l) as HeldOutRequest)
          : (await buildDataset({ seed, train: 0, heldOut: Number(values.count) })).heldOut
      ).filter((_, i) => filter(i));
      const started = performance.now();
      const t = await runTemplateSet(cli, store, requests, seed, values.verbose);
      const f = t.figures;
      const seconds = (performance.now() - started) / 1000;
      ok &&= t.ok;
      report.template = { ...f, byKind: t.byKind, seconds };
      process.stdout.write(
        [
          `template held-out: ${requests.length} requests (${f.toolRequests} need a tool, ${f.chatRequests} do not), ${seconds.toFixed(0)} s through toolbridge run`,
          `  right tool chosen:                ${pct(f.rightTool, f.toolRequests)} (${f.rightTool}/${f.toolRequests}, goal ≥95%)`,
          `  arguments exactly right:          ${pct(f.exactArguments, f.toolRequests)} (${f.exactArguments}/${f.toolRequests}, goal ≥90%)`,
          `  final answer contains the result: ${pct(f.answerHasResult, f.toolRequests)} (${f.answerHasResult}/${f.toolRequests}, goal ≥90%)`,
          `  no tool for no-tool requests:     ${pct(f.noToolWhenNoneNeeded, f.chatRequests)} (${f.noToolWhenNoneNeeded}/${f.chatRequests}, goal ≥95%)`,
          `  (first calls the tool rejected: ${f.rejectedFirstCalls}; answers quoting such an error: ${f.answersQuotingRejection})`,
          ...Object.entries(t.byKind).map(([k, d]) => `    ${k.padEnd(14)} ${d}`),
          `  ${turnTimes()}`,
          "",
        ].join("\n"),
      );
    }
    if (sets.includes("everyday")) {
      const started = performance.now();
      const e = await runEverydaySet(cli, store, values.verbose, filter);
      const f = e.figures;
      const seconds = (performance.now() - started) / 1000;
      ok &&= everydayGoalsMet(f);
      const groups: Record<string, string> = {};
      const byGroup = new Map<string, EverydayVerdict[]>();
      for (const v of e.verdicts) byGroup.set(v.group, [...(byGroup.get(v.group) ?? []), v]);
      for (const [group, list] of byGroup) {
        const g = summarize(list);
        groups[group] = g.toolItems
          ? `tool ${pct(g.rightTool, g.toolItems)}, args ${pct(g.exactArguments, g.toolItems)}, answer ${pct(g.statesOutcome, g.toolItems)}${g.failedItems ? `, invented ${g.inventedAfterFailure}/${g.failedItems}` : ""}`
          : `no call ${pct(g.noToolItems - g.junkCalls, g.noToolItems)}${g.outOfScopeItems ? `, says what it can do ${pct(g.offersAlternatives, g.outOfScopeItems)}` : ""}`;
      }
      report.everyday = { ...f, groups, seconds };
      process.stdout.write(
        [
          `everyday (hand-written): ${f.items} requests (${f.toolItems} need a tool, ${f.noToolItems} do not), ${seconds.toFixed(0)} s through toolbridge run`,
          `  right tool chosen:                     ${pct(f.rightTool, f.toolItems)} (${f.rightTool}/${f.toolItems}, goal ≥90%)`,
          `  arguments exactly right:               ${pct(f.exactArguments, f.toolItems)} (${f.exactArguments}/${f.toolItems}, goal ≥85%)`,
          `  answer states the result or failure:   ${pct(f.statesOutcome, f.toolItems)} (${f.statesOutcome}/${f.toolItems}, goal ≥90%)`,
          `  invented numbers after a tool failure: ${f.inventedAfterFailure} of ${f.failedItems} answers (goal 0)`,
          `  junk calls on out-of-scope requests:   ${f.junkCallsOutOfScope} of ${f.outOfScopeItems} (goal 0); on small talk ${f.junkCalls - f.junkCallsOutOfScope}`,
          `  out of scope, says what it can do:     ${f.offersAlternatives} of ${f.outOfScopeItems}`,
          ...Object.entries(groups).map(([k, d]) => `    ${k.padEnd(14)} ${d}`),
          `  ${turnTimes()}`,
          "",
        ].join("\n"),
      );
    }
    if (sets.includes("outside-ascii")) {
      const started = performance.now();
      const e = await runEverydaySet(cli, store, values.verbose, filter, OUTSIDE_ASCII_SET);
      const f = e.figures;
      const seconds = (performance.now() - started) / 1000;
      report.outsideAscii = { ...f, seconds };
      process.stdout.write(
        [
          `outside ASCII, check set (hand-written): ${f.items} requests, ${seconds.toFixed(0)} s through toolbridge run`,
          `  right tool chosen:                     ${pct(f.rightTool, f.toolItems)} (${f.rightTool}/${f.toolItems}, no goal)`,
          `  arguments exactly right:               ${pct(f.exactArguments, f.toolItems)} (${f.exactArguments}/${f.toolItems}, no goal)`,
          `  answer states the result or failure:   ${pct(f.statesOutcome, f.toolItems)} (${f.statesOutcome}/${f.toolItems}, no goal)`,
          "",
        ].join("\n"),
      );
    }
  } finally {
    await cli.close();
    await store.closeMemory();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
  for (const [name, file, goal, key, title] of [
    ["client-tools", CLIENT_TOOL_SET, 0.7, "clientTools", "client tools over /v1"],
    [
      "client-tools-check",
      CLIENT_TOOL_CHECK_SET,
      undefined,
      "clientToolsCheck",
      "client tools over /v1, check set",
    ],
  ] as const) {
    if (!sets.includes(name)) continue;
    const started = performance.now();
    const c: ClientToolFigures = await runClientToolSet({
      file,
      ...(values.model ? { modelPath: values.model } : {}),
      ...copy,
      filter,
      verbose: values.verbose,
    });
    const seconds = (performance.now() - started) / 1000;
    if (goal !== undefined) ok &&= c.exactArguments >= goal * c.items;
    report[key] = { ...c, seconds };
    process.stdout.write(
      [
        `${title}: ${c.items} requests, each offering its tool and two others, tool_choice auto, ${seconds.toFixed(0)} s`,
        `  a call made:              ${pct(c.called, c.items)} (${c.called}/${c.items})`,
        `  right tool:               ${pct(c.rightTool, c.items)} (${c.rightTool}/${c.items})`,
        `  schema-valid arguments:   ${pct(c.schemaValid, c.items)} (${c.schemaValid}/${c.items})`,
        `  arguments exactly right:  ${pct(c.exactArguments, c.items)} (${c.exactArguments}/${c.items}${goal === undefined ? ", no goal" : `, goal ≥${goal * 100}%`})`,
        "",
      ].join("\n"),
    );
  }
  if (values.json) writeFileSync(values.json, `${JSON.stringify(report, null, 2)}\n`);
  process.exitCode = ok ? 0 : 1;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(2);
  });
}
