import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { AgentMessage } from "../../src/core/agent-message.js";
import { BUNDLED_MODEL_TOOLS } from "../../src/models/bundled-model.js";
import { createRandom } from "../../src/models/gguf/make-test-model.js";
import { resultToText } from "../../src/protocols/core/render-helpers.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { createCalculatorTool, createDateTimeTools, createDiceTool } from "../../src/tools/builtin/index.js";
import { createMemoryTools } from "../../src/tools/builtin/memory.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { clientToolScenario } from "./client-tool-scenarios.js";
import { CLIENT_TOOL_SET } from "./client-tools-set.js";
import {
  afterAnother,
  calculatorScenario,
  convertScenario,
  diceScenario,
  differenceScenario,
  errorScenario,
  followUpScenario,
  noteScenario,
  outOfScopeAfterToolScenario,
  outOfScopeScenario,
  searchScenario,
  smallTalkScenario,
  timeScenario,
  twoStepScenario,
} from "./everyday-scenarios.js";
import { EVERYDAY_SET, loadJsonLines, OUTSIDE_ASCII_SET } from "./everyday-set.js";
import { renderConversation } from "./render-conversation.js";
import {
  drawRequest,
  HELD_OUT_THINGS,
  HELD_OUT_WORDS,
  jitter,
  type RequestKind,
  type Split,
  TRAIN_THINGS,
  ZONES,
} from "./requests.js";
import { type CallOutcome, type Mix, NEWEST_MIX, type Scenario, type ScenarioContext } from "./scenario.js";

export interface Conversation {
  /** The request kind (template conversations) or the scenario's name. */
  kind: string;
  request: string;
  messages: AgentMessage[];
  text: string;
  targets: Array<{ start: number; end: number }>;
}

export interface HeldOutRequest {
  id: number;
  kind: RequestKind;
  request: string;
  /** The call the model should make; null for small talk. */
  expected: { name: string; arguments: Record<string, unknown> } | null;
  /** For small talk: the reference reply (not scored, shown in reports). */
  reply?: string;
}

const ISO_INSTANT = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g;

/**
 * The real built-in tools, driven by the dataset's seeded random source and clock so a seed reproduces every result.
 * Memory tools run over a fresh in-memory store per conversation (see `withMemoryStore`).
 */
class DatasetTools {
  random: () => number = () => 0.5;
  clock = Date.UTC(2026, 0, 1);
  readonly tools: Tool[];
  readonly #executor: ToolExecutor;
  #store: SqliteStore | undefined;

  constructor() {
    const registry = new ToolRegistry();
    registry.registerAll([
      createCalculatorTool(),
      createDiceTool({ random: () => this.random() }),
      ...createDateTimeTools({ now: () => this.clock }),
    ]);
    registry.registerAll(
      createMemoryTools({
        searchMemory: (q, o) => this.#memory().searchMemory(q, o),
        saveNote: (n) => this.#memory().saveNote(n),
      }),
    );
    this.tools = registry.definitions().map((d) => d.tool);
    this.#executor = new ToolExecutor(registry);
  }

  #memory(): SqliteStore {
    this.#store ??= new SqliteStore(":memory:");
    return this.#store;
  }

  async freshMemory(): Promise<void> {
    await this.#store?.close();
    this.#store = undefined;
  }

  async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const result = await this.#executor.call(name, args);
    if (name !== "memory_search") return result;
    // The store stamps notes with the wall clock; the dataset's clock keeps a seed's data identical run to run.
    const stamp = new Date(this.clock - 3_600_000).toISOString();
    const content = result.content.map((b) =>
      b.type === "text" ? { ...b, text: b.text.replace(ISO_INSTANT, stamp) } : b,
    );
    return { ...result, content };
  }

  async close(): Promise<void> {
    await this.freshMemory();
  }
}

export interface DatasetOptions {
  seed: number;
  train: number;
  heldOut: number;
  /**
   * Share of training conversations written as scenarios that look like people (everyday-scenarios.ts,
   * client-tool-scenarios.ts); the rest come from the template generator (requests.ts). Default 0.
   */
  people?: number;
  /**
   * Draw the training conversations from this seed instead of continuing `seed`'s stream: the held-out split stays
   * `seed`'s, so data for a fine-tune (other conversations than the first training's) never names a held-out request.
   */
  trainSeed?: number;
  /**
   * Which generation's scenario mix to draw (default the newest, 8). Generation 5 added out-of-scope requests and
   * small talk after a tool turn, and an out-of-scope answer that lists what it can do the same way most times;
   * generation 6, a second request chained on with "ok now", "next, " … and music asked by genre; generation 7, notes
   * written as people write them (terse, schedules) and names and places with letters outside ASCII; generation 8, the
   * time in ISO format asked for more often and as people name it ("ISO 8601 timestamp for …"); 4 to 7 draw exactly
   * what generations 4 to 7 were trained on.
   */
  mix?: Mix;
}

export interface Dataset {
  tools: Tool[];
  train: Conversation[];
  heldOut: HeldOutRequest[];
}

/** Training conversations (tools really executed) and held-out requests; the same seed gives the same dataset. */
export async function buildDataset(options: DatasetOptions): Promise<Dataset> {
  let rng = createRandom(options.seed);
  const env = new DatasetTools();
  const order = env.tools.map((t) => t.name).join(",");
  if (order !== BUNDLED_MODEL_TOOLS.join(",")) throw new Error(`tool order changed: ${order}`);
  try {
    const heldOut: HeldOutRequest[] = [];
    const heldTexts = new Set<string>();
    const heldArgs = new Set<string>();
    // Held-out first, with a fixed quota per kind, so the split covers every tool.
    const quota: [RequestKind, number][] = [
      ["calculator", 0.28],
      ["roll_dice", 0.2],
      ["get_time", 0.22],
      ["note_save", 0.07],
      ["memory_search", 0.07],
      ["chat", 0.16],
    ];
    for (const [kind, share] of quota) {
      const n = Math.round(options.heldOut * share);
      for (let i = 0; i < n; i++) {
        const r = drawRequest(rng, "heldout", kind);
        const text = jitter(rng, r.text);
        heldTexts.add(text.toLowerCase());
        if (r.call) heldArgs.add(JSON.stringify(r.call));
        heldOut.push({
          id: heldOut.length,
          kind,
          request: text,
          expected: r.call ?? null,
          ...(r.reply ? { reply: r.reply } : {}),
        });
      }
    }
    if (options.trainSeed !== undefined) rng = createRandom(options.trainSeed);
    const train: Conversation[] = [];
    const people = options.people ?? 0;
    const guard = new HeldOutGuard();
    const mix = options.mix ?? NEWEST_MIX;
    const scenarios = SCENARIOS.filter(([, kind]) => (FROM_MIX[kind] ?? 4) <= mix);
    while (train.length < options.train) {
      if (people > 0 && rng() < people) {
        const [kind, scenario] = drawScenario(rng, scenarios);
        const c = await runScenario(env, rng, kind, scenario, mix);
        if (c && guard.allows(c)) train.push(c);
        continue;
      }
      const r = drawRequest(rng, "train" as Split);
      const text = jitter(rng, r.text);
      // Held-out means never seen: drop a training draw that collides with a held-out request or call.
      if (heldTexts.has(text.toLowerCase()) || (r.call && heldArgs.has(JSON.stringify(r.call)))) continue;
      const messages: AgentMessage[] = [{ role: "user", content: text }];
      if (r.call) {
        env.random = createRandom(Math.floor(rng() * 2 ** 31));
        env.clock = Date.UTC(2025, 0, 1) + Math.floor(rng() * 730 * 86_400_000);
        if (r.kind === "note_save" || r.kind === "memory_search") {
          await env.freshMemory();
          const query = String(r.call.arguments.query ?? r.call.arguments.title);
          await seedMemory((title, content) => env.call("note_save", { title, content }), rng, r.kind, query);
        }
        const id = `call_${train.length}`;
        const result = await env.call(r.call.name, r.call.arguments);
        // A tool's output may name a held-out value too (an unknown zone's "did you mean …?"): drop such a draw.
        const output = resultToText(result);
        if (ZONES.heldout.some((z) => output.includes(z))) continue;
        if (result.isError)
          throw new Error(`${r.call.name} ${JSON.stringify(r.call.arguments)} failed: ${output}`);
        messages.push(
          {
            role: "assistant",
            content: "",
            toolCalls: [{ id, name: r.call.name, arguments: r.call.arguments }],
          },
          { role: "tool", callId: id, name: r.call.name, result },
          { role: "assistant", content: (r.answer as (x: string) => string)(resultToText(result)) },
        );
      } else {
        messages.push({ role: "assistant", content: r.reply ?? "" });
      }
      const rendered = renderConversation(messages, env.tools);
      train.push({ kind: r.kind, request: text, messages, ...rendered });
    }
    return { tools: env.tools, train, heldOut };
  } finally {
    await env.close();
  }
}

const SINGLE_SCENARIOS: readonly Scenario[] = [
  calculatorScenario,
  diceScenario,
  timeScenario,
  convertScenario,
  differenceScenario,
  noteScenario,
  searchScenario,
  errorScenario,
  outOfScopeScenario,
  smallTalkScenario,
];

/** Scenarios a later mix added (the earlier mixes draw without them, so their data stays as it was). */
const FROM_MIX: Record<string, Mix> = { "after-a-tool": 5, notes: 7 };

/** The mix of scenarios, by weight. */
const SCENARIOS: readonly (readonly [number, string, Scenario])[] = [
  [16, "calculator", calculatorScenario],
  [8, "roll_dice", diceScenario],
  [11, "get_time", timeScenario],
  [6, "convert_time", convertScenario],
  [5, "time_difference", differenceScenario],
  [5, "note_save", noteScenario],
  [7, "memory_search", searchScenario],
  [10, "follow-up", followUpScenario],
  [5, "two-step", twoStepScenario],
  [6, "tool-error", errorScenario],
  [6, "out-of-scope", outOfScopeScenario],
  [3, "chat", smallTalkScenario],
  [14, "client-tools", clientToolScenario],
  // Notes as people write them (mix 7's new facts: terse, schedules, letters outside ASCII) a little more often.
  [6, "notes", (ctx) => (ctx.rng() < 0.5 ? noteScenario(ctx) : searchScenario(ctx))],
  [6, "after-another", afterAnother((ctx) => pick(ctx.rng, SINGLE_SCENARIOS)(ctx), SINGLE_SCENARIOS)],
  // In a chat the previous request stays in view: a request it cannot serve, or a "thanks", right after a tool turn
  // (arithmetic just before primed generation 4 into calling the calculator on "who won the world cup in 2018").
  [
    16,
    "after-a-tool",
    afterAnother(
      (ctx) => (ctx.rng() < 0.75 ? outOfScopeAfterToolScenario(ctx) : smallTalkScenario(ctx)),
      [
        calculatorScenario,
        calculatorScenario,
        calculatorScenario,
        diceScenario,
        diceScenario,
        timeScenario,
        timeScenario,
        convertScenario,
        differenceScenario,
        noteScenario,
        searchScenario,
        followUpScenario,
        errorScenario,
      ],
    ),
  ],
];

function pick<T>(rng: () => number, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)] as T;
}

function drawScenario(rng: () => number, scenarios: typeof SCENARIOS): [string, Scenario] {
  const total = scenarios.reduce((a, [w]) => a + w, 0);
  let u = rng() * total;
  for (const [w, kind, scenario] of scenarios) {
    if (u < w) return [kind, scenario];
    u -= w;
  }
  const [, kind, scenario] = scenarios.at(-1) as (typeof scenarios)[number];
  return [kind, scenario];
}

/**
 * Keeps what the evaluations ask out of training: a conversation is dropped when a user turn is one of the
 * hand-written sets' requests, or when its text names a template held-out zone (or its city), note title or value.
 */
class HeldOutGuard {
  readonly #requests = new Set<string>();
  readonly #markers: RegExp;

  constructor() {
    const norm = HeldOutGuard.normalize;
    for (const set of [EVERYDAY_SET, OUTSIDE_ASCII_SET])
      for (const item of loadJsonLines<{ request: string }>(set)) this.#requests.add(norm(item.request));
    for (const item of loadJsonLines<{ request: string }>(CLIENT_TOOL_SET))
      this.#requests.add(norm(item.request));
    const cities = ZONES.heldout.map((z) => (z.split("/").at(-1) as string).replaceAll("_", " "));
    const words = [...ZONES.heldout, ...cities, ...HELD_OUT_THINGS, ...HELD_OUT_WORDS];
    this.#markers = new RegExp(`\\b(${words.map((w) => w.replace(/[/]/g, "\\/")).join("|")})\\b`, "i");
  }

  static normalize(text: string): string {
    return text
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, " ")
      .trim();
  }

  allows(c: Conversation): boolean {
    for (const m of c.messages) {
      if (
        m.role === "user" &&
        (this.#requests.has(HeldOutGuard.normalize(m.content)) || this.#markers.test(m.content))
      )
        return false;
      if (
        m.role === "assistant" &&
        m.toolCalls?.some((call) => this.#markers.test(JSON.stringify(call.arguments)))
      )
        return false;
      if (m.role === "tool" && ZONES.heldout.some((z) => resultToText(m.result).includes(z))) return false;
    }
    return true;
  }
}

/**
 * One scenario, run: built-in calls through the real tools (seeded dice, the conversation's clock, a fresh memory),
 * client-tool calls with the result the scenario gives; rendered as the runtime renders it. Undefined when the
 * scenario wrote nothing, or a call's arguments are not in the tool's schema order (the call grammar writes every
 * property in that order, so a call written otherwise could never be produced).
 */
async function runScenario(
  env: DatasetTools,
  rng: () => number,
  kind: string,
  scenario: Scenario,
  mix: Mix,
): Promise<Conversation | undefined> {
  env.random = createRandom(Math.floor(rng() * 2 ** 31));
  env.clock = Date.UTC(2025, 0, 1) + Math.floor(rng() * 730 * 86_400_000);
  await env.freshMemory();
  const messages: AgentMessage[] = [];
  let tools = env.tools;
  let calls = 0;
  const inOrder = (name: string, args: Record<string, unknown>) => {
    const tool = tools.find((t) => t.name === name);
    const order = Object.keys((tool?.inputSchema.properties ?? {}) as object);
    if (!tool || JSON.stringify(Object.keys(args)) !== JSON.stringify(order))
      throw new Error(
        `scenario ${kind}: ${name} ${JSON.stringify(args)} is not every property in schema order`,
      );
  };
  const record = (name: string, args: Record<string, unknown>, result: CallToolResult): CallOutcome => {
    const id = `call_${calls++}`;
    messages.push(
      { role: "assistant", content: "", toolCalls: [{ id, name, arguments: args }] },
      { role: "tool", callId: id, name, result },
    );
    return { text: resultToText(result), isError: result.isError === true };
  };
  const ctx: ScenarioContext = {
    rng,
    mix,
    now: env.clock,
    note: async (title, content) => {
      await env.call("note_save", { title, content, tags: [] });
    },
    offer: (offered) => {
      tools = offered;
    },
    user: (text) => {
      messages.push({ role: "user", content: text });
    },
    call: async (name, args) => {
      inOrder(name, args);
      return record(name, args, await env.call(name, args));
    },
    fake: (name, args, text) => {
      inOrder(name, args);
      return record(name, args, { content: [{ type: "text", text }] });
    },
    answer: (text) => {
      messages.push({ role: "assistant", content: text });
    },
  };
  await scenario(ctx);
  const request = messages.findLast((m) => m.role === "user");
  if (!request || messages.at(-1)?.role !== "assistant") return undefined;
  return { kind, request: request.content, messages, ...renderConversation(messages, tools) };
}

/**
 * A memory as a user would have it, for one request: a few other notes (some sharing a word with the query, so
 * full-text search returns them too), and for a search, most of the time the asked-about thing saved once or a few
 * times. Training and the evaluation both seed each request's fresh memory with this, from their own seeded random
 * sources.
 */
export async function seedMemory(
  save: (title: string, content: string) => Promise<unknown>,
  rng: () => number,
  kind: RequestKind,
  query: string,
): Promise<void> {
  const others = Math.floor(rng() * 4);
  for (let i = 0; i < others; i++) {
    const title =
      rng() < 0.3
        ? `${query.split(" ")[0]} ${TRAIN_THINGS[Math.floor(rng() * TRAIN_THINGS.length)]?.split(" ").at(-1)}`
        : (TRAIN_THINGS[Math.floor(rng() * TRAIN_THINGS.length)] as string);
    await save(title, `my ${title} is ${1 + Math.floor(rng() * 9000)}`);
  }
  if (kind === "memory_search" && rng() < 0.75) {
    const copies = 1 + Math.floor(rng() * 3);
    for (let i = 0; i < copies; i++) await save(query, `my ${query} is ${10 + Math.floor(rng() * 9000)}`);
  }
}
