/**
 * bench/copy-arguments — what copy-constrained string arguments (src/models/llama/copy-grammar.ts) buy on BFCL simple
 * (data/bfcl, simple_python): each question with its one function, the call forced (`tool_choice` required, so the
 * arguments are measured, not the choice to call), text mode, greedy; the same model with copying on and off, side by
 * side in one process. Scored as BFCL's checker scores: every required parameter given, every value among the ground
 * truth's candidates (strings compared as BFCL standardizes them: case, spaces and , . / - _ * ^ ignored), no
 * parameter the function does not define; and, of the string parameters the ground truth names, how many are right.
 * Models: a generated tiny GGUF (random weights) and the bundled demo model (or `--model file.gguf`).
 * Usage: npm run bench:copy-arguments [-- --limit N] [--model file.gguf]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { bundledModelPath } from "../src/models/bundled-model.js";
import { writeTestModel } from "../src/models/gguf/make-test-model.js";
import { createLlamaModel } from "../src/models/llama/index.js";
import { convertBfclFunctionToTool } from "../src/tools/bfcl-schema.js";
import { groundTruthCall, loadBfclCategory } from "../test/helpers/bfcl.js";

const { values } = parseArgs({ options: { limit: { type: "string" }, model: { type: "string" } } });
const cases = loadBfclCategory("simple_python").slice(0, values.limit ? Number(values.limit) : undefined);
const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-bench-copy-"));
const tiny = path.join(dir, "tiny.gguf");
writeTestModel(tiny, { seed: 1 });

/** BFCL's standardize_string. */
const standard = (s: string) =>
  s
    .replace(/[ ,./\-_*^]/g, "")
    .toLowerCase()
    .replaceAll("'", '"');

function sameValue(value: unknown, candidate: unknown): boolean {
  if (typeof candidate === "string" && typeof value === "string")
    return standard(value) === standard(candidate);
  if (typeof candidate === "number" && typeof value === "number") return value === candidate;
  return JSON.stringify(value) === JSON.stringify(candidate);
}

interface Score {
  cases: number;
  exact: number;
  strings: number;
  stringsRight: number;
  seconds: number;
}

async function measure(modelPath: string, copyArguments: boolean): Promise<Score> {
  const model = createLlamaModel({
    modelPath,
    mode: "text",
    protocol: "hermes",
    threads: 1,
    gpu: false,
    temperature: 0,
    maxTokens: 160,
    copyArguments,
  });
  await model.load();
  const score: Score = { cases: 0, exact: 0, strings: 0, stringsRight: 0, seconds: 0 };
  const started = performance.now();
  for (const { entry, answer } of cases) {
    const expected = answer?.ground_truth[0];
    if (!expected) continue;
    const truth = groundTruthCall(entry, expected);
    const candidates = expected[truth.name] ?? {};
    const tools = entry.function.map(convertBfclFunctionToTool);
    let args: Record<string, unknown> | undefined;
    for await (const event of model.stream({
      messages: [{ role: "user", content: entry.question[0]?.[0]?.content ?? "" }],
      tools,
      toolChoice: "required",
      signal: AbortSignal.timeout(60_000),
    })) {
      if (event.type === "call-end" && args === undefined) {
        const raw = event.arguments;
        args = (typeof raw === "string" ? JSON.parse(raw) : raw) as Record<string, unknown>;
      }
    }
    score.cases++;
    const defined = new Set(Object.keys(truth.doc.parameters.properties ?? {}));
    let exact = args !== undefined && Object.keys(args).every((k) => defined.has(k));
    for (const [param, options] of Object.entries(candidates)) {
      const value = args?.[param];
      const right =
        value === undefined ? options.includes("") : options.some((c) => c !== "" && sameValue(value, c));
      if (!right) exact = false;
      if (options.some((c) => typeof c === "string" && c !== "")) {
        score.strings++;
        if (right && value !== undefined) score.stringsRight++;
      }
    }
    if (exact) score.exact++;
  }
  score.seconds = (performance.now() - started) / 1000;
  return score;
}

const pct = (n: number, d: number) => `${((100 * n) / Math.max(d, 1)).toFixed(1)}%`;
const models: [string, string][] = [
  ["tiny random GGUF", tiny],
  [values.model ? path.basename(values.model) : "bundled demo model", values.model ?? bundledModelPath()],
];
process.stdout.write(`BFCL simple_python, ${cases.length} questions, call forced, greedy\n`);
for (const [label, file] of models) {
  for (const copy of [false, true]) {
    const s = await measure(file, copy);
    process.stdout.write(
      `${label.padEnd(20)} copy ${copy ? "on " : "off"}: calls exact ${pct(s.exact, s.cases)} (${s.exact}/${s.cases}), string arguments right ${pct(s.stringsRight, s.strings)} (${s.stringsRight}/${s.strings}), ${s.seconds.toFixed(0)} s\n`,
    );
  }
}
rmSync(dir, { recursive: true, force: true });
process.exit(0);
