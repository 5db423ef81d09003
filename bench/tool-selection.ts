/**
 * bench:tool-selection — preselecting tools for a large catalogue by lexical retrieval (`ToolIndex`, BM25F over a
 * tool's name words, description, parameter names and parameter descriptions), on BFCL's own data:
 * - the pool: every distinct function (by name) of every BFCL v4 file in data/bfcl (about 1,850 tools);
 * - the queries: each question of `multiple`, `parallel_multiple`, `live_multiple` and `live_parallel_multiple` (the
 *   entries that offer several functions), with the functions its possible answer calls as the relevant ones.
 * Reported: recall@5 and recall@10 (share of the expected functions in the top k, averaged over questions; and the
 * share of questions with all of them there), latency per query (median, p95), time to build the index of the whole
 * pool, and the characters of the catalogue a model is shown (hermes' rendering) for the top 5 against the full pool.
 * Side by side: minisearch with its defaults over names and descriptions, and over the same four fields ToolIndex
 * reads, to show what the name splitting, field weights and term normalisation add.
 * Times are given as wall clock and as the process's CPU time: on a shared machine (this project's has 2 cores for
 * eight engineers) the wall clock mostly measures the wait for a core, while the CPU time is what the work costs.
 * The goals are judged on CPU time; both are printed, with the load average.
 * A second scenario, the one the option is for: a catalogue of 200 mounted tools (the entry's own functions, the
 * expected ones among them, and the rest drawn at random from the pool, seeded), recall of the same questions.
 * The misses of the pooled scenario are classed: ranked 6th–10th, below 10th; and why: the expected function shares
 * no word with the question (nothing lexical can find it), ranks below a near-twin of it (same name words but for
 * numbers, or descriptions sharing half their words), was asked together with other functions (whose tools take the
 * five places), or was asked in another script.
 *
 * Run: npm run bench:tool-selection   (tsx --expose-gc bench/tool-selection.ts). Takes about a minute.
 * Goals (issue 33): recall@5 ≥ 0.95, < 1 ms per query, index of 2,000 tools built in < 200 ms.
 */
import os from "node:os";
import type { Tool } from "@modelcontextprotocol/server";
import MiniSearch from "minisearch";
import { BFCL_CATEGORIES, type BfclCategory, loadBfclCategory } from "../src/eval/bfcl-dataset.js";
import { createRandom } from "../src/models/gguf/make-test-model.js";
import { getProtocol } from "../src/protocols/protocol-registry.js";
import { convertBfclFunctionToTool } from "../src/tools/bfcl-schema.js";
import { nameWords, normalizeTerm, ToolIndex } from "../src/tools/tool-index.js";

const QUERY_CATEGORIES: BfclCategory[] = [
  "multiple",
  "parallel_multiple",
  "live_multiple",
  "live_parallel_multiple",
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

// The pool: one tool per distinct name, the first doc seen.
const pool = new Map<string, Tool>();
for (const category of BFCL_CATEGORIES) {
  for (const { entry } of loadBfclCategory(category)) {
    for (const doc of entry.function)
      if (!pool.has(doc.name)) pool.set(doc.name, convertBfclFunctionToTool(doc));
  }
}
const tools = [...pool.values()];

interface Query {
  category: BfclCategory;
  text: string;
  expected: string[];
  /** The functions the entry itself offers (the expected ones and BFCL's distractors). */
  offered: string[];
}
const queries: Query[] = QUERY_CATEGORIES.flatMap((category) =>
  loadBfclCategory(category).map(({ entry, answer }) => ({
    category,
    offered: [...new Set(entry.function.map((doc) => doc.name))],
    text: entry.question
      .flat()
      .filter((m) => m.role === "user")
      .map((m) => m.content)
      .join("\n"),
    expected: [...new Set((answer?.ground_truth ?? []).map((call) => Object.keys(call)[0]!))],
  })),
);

interface Ranker {
  name: string;
  build(catalogue: Tool[]): { search(query: string, limit: number): string[] };
}

const rankers: Ranker[] = [
  {
    name: "minisearch defaults (name, description)",
    build(tools) {
      const index = new MiniSearch<{ id: number; name: string; description: string }>({
        fields: ["name", "description"],
      });
      index.addAll(tools.map((tool, id) => ({ id, name: tool.name, description: tool.description ?? "" })));
      return {
        search: (query, limit) =>
          index
            .search(query)
            .slice(0, limit)
            .map((hit) => tools[hit.id as number]!.name),
      };
    },
  },
  {
    name: "minisearch defaults (same four fields)",
    build(tools) {
      const index = new MiniSearch<Record<string, string | number>>({
        fields: ["name", "description", "params", "paramText"],
      });
      index.addAll(
        tools.map((tool, id) => {
          const properties = (tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>;
          return {
            id,
            name: tool.name,
            description: tool.description ?? "",
            params: Object.keys(properties).join(" "),
            paramText: Object.values(properties)
              .map((p) => p.description ?? "")
              .join(" "),
          };
        }),
      );
      return {
        search: (query, limit) =>
          index
            .search(query)
            .slice(0, limit)
            .map((hit) => tools[hit.id as number]!.name),
      };
    },
  },
  {
    name: "ToolIndex (toolbridge)",
    build(tools) {
      const index = new ToolIndex(tools);
      return { search: (query, limit) => index.search(query, limit).map((m) => m.name) };
    },
  },
];

const hermes = getProtocol("hermes");
const catalogueChars = (offered: Tool[]) => hermes.renderCatalogue(offered).length;
const fullChars = catalogueChars(tools);
const byName = new Map(tools.map((tool) => [tool.name, tool]));

// The goal names 2,000 tools: the pool, topped up with renamed copies of its first tools.
const BUILD_SIZE = 2000;
const buildCatalogue = [
  ...tools,
  ...tools
    .slice(0, Math.max(0, BUILD_SIZE - tools.length))
    .map((tool) => ({ ...tool, name: `${tool.name}_copy` })),
];
console.log(
  `bench:tool-selection — load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cores; pool ${tools.length} tools (every distinct BFCL function), ${queries.length} questions (${QUERY_CATEGORIES.join(", ")}); build times over ${BUILD_SIZE} tools\n`,
);
// Index builds: rounds alternate between the rankers (so the machine's load hits both alike), the heap is collected
// before each (when run with --expose-gc, as the npm script does) and the median of each counts.
const gc = (globalThis as { gc?: () => void }).gc;
const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};
const builds = rankers.map(() => ({ wall: [] as number[], cpu: [] as number[] }));
for (let round = 0; round < 9; round++) {
  rankers.forEach((ranker, i) => {
    gc?.();
    const cpu = process.cpuUsage();
    const started = performance.now();
    ranker.build(buildCatalogue);
    const wall = performance.now() - started;
    if (round > 0) {
      builds[i]!.wall.push(wall);
      builds[i]!.cpu.push(cpuMs(cpu));
    }
  });
}
const results: Array<Record<string, string | number>> = [];
for (const [rankerIndex, ranker] of rankers.entries()) {
  const built = ranker.build(tools);
  const latencies: number[] = [];
  let recall5 = 0;
  let recall10 = 0;
  let all5 = 0;
  let all10 = 0;
  let topChars = 0;
  const perCategory = new Map<BfclCategory, { n: number; recall5: number }>();
  // Two passes; the second is timed (the first warms up).
  let queryCpu = 0;
  for (const pass of [0, 1]) {
    gc?.();
    const passCpu = process.cpuUsage();
    for (const query of queries) {
      const started = performance.now();
      const ranked = built.search(query.text, 10);
      const elapsed = performance.now() - started;
      if (pass === 0) continue;
      latencies.push(elapsed);
      const top5 = new Set(ranked.slice(0, 5));
      const top10 = new Set(ranked);
      const found5 = query.expected.filter((name) => top5.has(name)).length;
      const found10 = query.expected.filter((name) => top10.has(name)).length;
      recall5 += found5 / query.expected.length;
      recall10 += found10 / query.expected.length;
      if (found5 === query.expected.length) all5++;
      if (found10 === query.expected.length) all10++;
      topChars += catalogueChars(ranked.slice(0, 5).map((name) => byName.get(name)!));
      const slot = perCategory.get(query.category) ?? { n: 0, recall5: 0 };
      slot.n++;
      slot.recall5 += found5 / query.expected.length;
      perCategory.set(query.category, slot);
    }
    if (pass === 1) queryCpu = cpuMs(passCpu);
  }
  const n = queries.length;
  results.push({
    ranker: ranker.name,
    "recall@5": (recall5 / n).toFixed(3),
    "recall@10": (recall10 / n).toFixed(3),
    "all@5": (all5 / n).toFixed(3),
    "all@10": (all10 / n).toFixed(3),
    "ms/query p50": median(latencies).toFixed(3),
    "ms/query mean": (latencies.reduce((a, b) => a + b, 0) / latencies.length).toFixed(3),
    "ms/query p95": percentile(latencies, 95).toFixed(3),
    "CPU ms/query": (queryCpu / n).toFixed(3),
    "build ms": median(builds[rankerIndex]!.wall).toFixed(1),
    "build CPU ms": median(builds[rankerIndex]!.cpu).toFixed(1),
    "top-5 chars": Math.round(topChars / n),
  });
  console.log(
    `${ranker.name}: recall@5 by category — ${[...perCategory.entries()]
      .map(([category, slot]) => `${category} ${(slot.recall5 / slot.n).toFixed(3)} (${slot.n})`)
      .join(", ")}`,
  );
}
console.log("");
console.table(results);
console.log(
  `\ncatalogue shown to the model (hermes): full pool ${fullChars.toLocaleString("en")} characters; top 5 ${results
    .map((r) => `${r["top-5 chars"]} (${r.ranker})`)
    .join(", ")} → ${(fullChars / Number(results.at(-1)!["top-5 chars"])).toFixed(0)}× less`,
);

// Where the pooled misses of ToolIndex rank, and why.
const index = new ToolIndex(tools);
const words = (text: string) =>
  new Set(
    text
      .split(/[^\p{L}\p{N}]+/u)
      .map((word) => normalizeTerm(word))
      .filter((term): term is string => term !== null && !/^\d+$/.test(term)),
  );
const overlap = (a: Set<string>, b: Set<string>) => {
  let shared = 0;
  for (const word of a) if (b.has(word)) shared++;
  return shared / (a.size + b.size - shared || 1);
};
const sameWords = (a: Set<string>, b: Set<string>) =>
  a.size === b.size && [...a].every((word) => b.has(word));
const isTwin = (a: Tool, b: Tool) =>
  sameWords(words(nameWords(a.name)), words(nameWords(b.name))) ||
  overlap(words(a.description ?? ""), words(b.description ?? "")) >= 0.5;
const paramText = (tool: Tool) =>
  Object.entries((tool.inputSchema.properties ?? {}) as Record<string, { description?: string }>)
    .map(([key, property]) => `${nameWords(key)} ${property.description ?? ""}`)
    .join(" ");
const misses = {
  total: 0,
  rank6to10: 0,
  below10: 0,
  noSharedWord: 0,
  belowTwin: 0,
  several: 0,
  otherScript: 0,
};
for (const query of queries) {
  const ranked = index.search(query.text, 10).map((m) => m.name);
  for (const name of query.expected) {
    const rank = ranked.indexOf(name);
    if (rank >= 0 && rank < 5) continue;
    misses.total++;
    if (rank >= 5) misses.rank6to10++;
    else misses.below10++;
    const expected = byName.get(name)!;
    const above = ranked.slice(0, 5).filter((other) => !query.expected.includes(other));
    const questionWords = words(query.text);
    const toolWords = words(
      `${nameWords(expected.name)} ${expected.description ?? ""} ${paramText(expected)}`,
    );
    if (![...toolWords].some((word) => questionWords.has(word))) misses.noSharedWord++;
    if (above.some((other) => isTwin(byName.get(other)!, expected))) misses.belowTwin++;
    if (query.expected.length > 1) misses.several++;
    if (/[^\p{Script=Latin}\p{N}\p{P}\p{S}\s]/u.test(query.text)) misses.otherScript++;
  }
}
const expectedCount = queries.reduce((sum, query) => sum + query.expected.length, 0);
console.log(
  `ToolIndex misses: ${misses.total} of ${expectedCount} expected functions not in the top 5 — ${misses.rank6to10} ranked 6th–10th, ${misses.below10} below 10th; ${misses.noSharedWord} share no word with the question, ${misses.belowTwin} rank below a near-twin of it in the top 5, ${misses.several} were asked with other functions in one question, ${misses.otherScript} asked in another script (a miss may be in several classes)`,
);

// The scenario the option is for: 200 tools mounted, the entry's own functions among them.
const MOUNTED = 200;
const random = createRandom(33);
let mounted5 = 0;
let mounted10 = 0;
for (const query of queries) {
  const catalogue = new Set(query.offered);
  while (catalogue.size < MOUNTED) catalogue.add(tools[Math.floor(random() * tools.length)]!.name);
  const ranked = new ToolIndex([...catalogue].map((name) => byName.get(name)!))
    .search(query.text, 10)
    .map((m) => m.name);
  mounted5 +=
    query.expected.filter((name) => ranked.slice(0, 5).includes(name)).length / query.expected.length;
  mounted10 += query.expected.filter((name) => ranked.includes(name)).length / query.expected.length;
}
console.log(
  `ToolIndex on a catalogue of ${MOUNTED} (the entry's functions + random others, seed 33): recall@5 ${(mounted5 / queries.length).toFixed(3)}, recall@10 ${(mounted10 / queries.length).toFixed(3)}\n`,
);

const ours = results.at(-1)!;
const goals = [
  [`recall@5 ≥ 0.95 (pool of ${tools.length})`, Number(ours["recall@5"]) >= 0.95],
  [`< 1 ms per query (CPU; wall p50 ${ours["ms/query p50"]} ms)`, Number(ours["CPU ms/query"]) < 1],
  [
    `index of ${buildCatalogue.length} tools in < 200 ms (CPU; wall ${ours["build ms"]} ms)`,
    Number(ours["build CPU ms"]) < 200,
  ],
] as const;
for (const [goal, met] of goals) console.log(`goal ${goal}: ${met ? "met" : "NOT met"}`);
