/**
 * `npm run train-model [-- --steps N] [--fresh]`: the whole bundled-model pipeline, reproducibly.
 *   1. parity: a random train.py model exported to GGUF gives node-llama-cpp PyTorch's logits (stops here if not);
 *   2. generate-data.ts: conversations through the real tools and the runtime's prompt rendering, tokenized by
 *      node-llama-cpp (fixed seed → same data; kept and reused when the same options made it);
 *   3. train.py: PyTorch on the CPU (Debian's python3-torch; TOOLBRIDGE_TRAIN_PYTHON overrides /usr/bin/python3),
 *      checkpointing every few minutes; run again after an interruption and it resumes from the checkpoint, taking
 *      exactly the steps an uninterrupted run takes (`--fresh` starts over);
 *   4. export-gguf.ts: models/toolbridge-demo.gguf.
 * Data, weights, checkpoints and logs stay in .train/ (git-ignored by its own .gitignore). Then `npm run eval-model`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { checkParity, PYTHON, torchAvailable } from "./check-parity.js";

const { values } = parseArgs({
  options: {
    steps: { type: "string", default: "24000" },
    // A safety net only: a run that hits it stops early (resume it to finish).
    minutes: { type: "string", default: "600" },
    threads: { type: "string", default: "1" },
    seed: { type: "string", default: "7" },
    conversations: { type: "string", default: "60000" },
    people: { type: "string", default: "0.8" },
    dim: { type: "string", default: "192" },
    layers: { type: "string", default: "4" },
    heads: { type: "string", default: "6" },
    ff: { type: "string", default: "512" },
    lr: { type: "string", default: "3e-3" },
    "batch-tokens": { type: "string", default: "2000" },
    data: { type: "string", default: ".train/data" },
    weights: { type: "string", default: ".train/weights" },
    out: { type: "string", default: "models/toolbridge-demo.gguf" },
    fresh: { type: "boolean", default: false },
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
if (values.fresh) {
  rmSync(values.data, { recursive: true, force: true });
  rmSync(values.weights, { recursive: true, force: true });
}
// The same options made the data on disk: keep it (a resumed run needs the very same data; generating it again takes
// minutes and gives the same bytes).
const dataOptions = { seed: values.seed, train: values.conversations, people: values.people };
const made = `${values.data}/options.json`;
const reuse = existsSync(made) && readFileSync(made, "utf8") === JSON.stringify(dataOptions);
if (reuse) process.stdout.write(`\n== generate data: reusing ${values.data} (same options)\n`);
else {
  step("generate data", process.execPath, [
    ...tsx,
    "scripts/train/generate-data.ts",
    "--seed",
    values.seed,
    "--train",
    values.conversations,
    "--people",
    values.people,
    "--out",
    values.data,
  ]);
  writeFileSync(made, JSON.stringify(dataOptions));
}
const started = Date.now();
// One thread: it keeps its pace when the machine's other core is busy, where two threads slow to a quarter (OpenMP
// barriers waiting on a preempted thread). Same data, seed, step count and thread count → the same weights, whether
// the run was interrupted and resumed or not.
step("train", PYTHON, [
  "scripts/train/train.py",
  "--data",
  values.data,
  "--out",
  values.weights,
  "--resume",
  "--steps",
  values.steps,
  "--minutes",
  values.minutes,
  "--threads",
  values.threads,
  "--dim",
  values.dim,
  "--layers",
  values.layers,
  "--heads",
  values.heads,
  "--ff",
  values.ff,
  "--batch-tokens",
  values["batch-tokens"],
  "--lr",
  values.lr,
  "--warmup",
  "200",
]);
const manifest = JSON.parse(readFileSync(`${values.weights}/manifest.json`, "utf8")) as {
  steps: number;
  minutes: number;
};
if (manifest.steps < Number(values.steps)) {
  process.stderr.write(
    `stopped at step ${manifest.steps} of ${values.steps} (the --minutes safety net): run again to resume.\n`,
  );
  process.exit(1);
}
process.stdout.write(
  `trained ${manifest.steps} steps in ${manifest.minutes.toFixed(1)} min of training (this session ${((Date.now() - started) / 60000).toFixed(1)} min)\n`,
);
step("export", process.execPath, [
  ...tsx,
  "scripts/train/export-gguf.ts",
  "--weights",
  values.weights,
  "--pieces",
  `${values.data}/pieces.json`,
  "--out",
  values.out,
]);
process.stdout.write(`whole pipeline: ${((Date.now() - pipelineStarted) / 60000).toFixed(1)} min\n`);
