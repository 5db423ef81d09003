/**
 * `npm run train-model [-- --steps 14400]`: the whole bundled-model pipeline, reproducibly.
 *   1. parity: a random train.py model exported to GGUF gives node-llama-cpp PyTorch's logits (stops here if not);
 *   2. generate-data.ts: conversations through the real tools and the runtime's prompt rendering, tokenized by
 *      node-llama-cpp (fixed seed → same data);
 *   3. train.py: PyTorch on the CPU (Debian's python3-torch; TOOLBRIDGE_TRAIN_PYTHON overrides /usr/bin/python3);
 *   4. export-gguf.ts: models/toolbridge-demo.gguf.
 * Data, weights and logs stay in .train/ (git-ignored by its own .gitignore). Then `npm run eval-model`.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { checkParity, PYTHON, torchAvailable } from "./check-parity.js";

const { values } = parseArgs({
  options: {
    steps: { type: "string", default: "14400" },
    // A safety net only: a run that hits it stops early and is no longer reproducible step for step.
    minutes: { type: "string", default: "58" },
    threads: { type: "string", default: "1" },
    seed: { type: "string", default: "7" },
    conversations: { type: "string", default: "48000" },
  },
});

function step(title: string, command: string, args: string[]): void {
  process.stdout.write(`\n== ${title}\n`);
  const r = spawnSync(command, args, { stdio: "inherit" });
  if (r.status !== 0) {
    process.stderr.write(`${title} failed (exit ${r.status}).\n`);
    process.exit(1);
  }
}

if (!torchAvailable()) {
  process.stderr.write(
    `${PYTHON} cannot import torch and numpy. Install them (Debian: apt-get install python3-torch python3-numpy libopenblas0-pthread) or set TOOLBRIDGE_TRAIN_PYTHON.\n`,
  );
  process.exit(2);
}
const pipelineStarted = Date.now();
mkdirSync(".train", { recursive: true });
writeFileSync(".train/.gitignore", "*\n");
process.stdout.write("== parity: PyTorch vs node-llama-cpp logits\n");
const parity = await checkParity();
process.stdout.write(`${JSON.stringify(parity)}\n`);
// llama.cpp keeps the KV cache in f16, hence a few 1e-3; a wrong RoPE pairing or tensor layout gives ~1e-1.
if (parity.maxAbsDiff > 5e-3) {
  process.stderr.write("parity check failed: the exported model does not compute what PyTorch computes.\n");
  process.exit(1);
}
const tsx = ["--import", "tsx"];
step("generate data", process.execPath, [
  ...tsx,
  "scripts/train/generate-data.ts",
  "--seed",
  values.seed,
  "--train",
  values.conversations,
]);
const started = Date.now();
// 0.69M parameters, one thread, small batches: what matters for a model this size is the number of optimizer steps
// (copying unseen numbers and names emerges only after a few thousand), and one thread keeps its pace when the
// machine's other core is busy, where two threads slow to a quarter (OpenMP barriers waiting on a preempted thread).
// Same data, seed, step count and thread count → the same weights.
step("train", PYTHON, [
  "scripts/train/train.py",
  "--steps",
  values.steps,
  "--minutes",
  values.minutes,
  "--threads",
  values.threads,
  "--dim",
  "128",
  "--layers",
  "3",
  "--heads",
  "4",
  "--ff",
  "320",
  "--batch-tokens",
  "2000",
  "--lr",
  "4e-3",
  "--warmup",
  "100",
]);
process.stdout.write(`trained in ${((Date.now() - started) / 60000).toFixed(1)} min\n`);
step("export", process.execPath, [...tsx, "scripts/train/export-gguf.ts"]);
process.stdout.write(`whole pipeline: ${((Date.now() - pipelineStarted) / 60000).toFixed(1)} min\n`);
