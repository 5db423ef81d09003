/**
 * `npm run train-model [-- --steps N] [--fresh]`: the whole bundled-model pipeline, reproducibly.
 *   1. parity: a random train.py model exported to GGUF gives node-llama-cpp PyTorch's logits (stops here if not);
 *   2. generate-data.ts: conversations through the real tools and the runtime's prompt rendering, tokenized by
 *      node-llama-cpp (fixed seed → same data; kept and reused when the same options made it);
 *   3. train.py: PyTorch (TOOLBRIDGE_TRAIN_PYTHON overrides /usr/bin/python3) on the device the recipe names —
 *      generations 1, 2 and 4 to 8 on the CPU (Debian's python3-torch), generation 3 on an NVIDIA GPU (`--device cpu` runs its
 *      steps on the CPU: days) — checkpointing every few minutes; run again after an interruption and it resumes from
 *      the checkpoint, taking exactly the steps an uninterrupted run takes (`--fresh` starts over);
 *   4. export-gguf.ts: models/toolbridge-demo.gguf for generation 8 (the shipped model), .train/genN.gguf for the
 *      others (`npm run eval-model -- --model .train/gen2.gguf`, and
 *      `TOOLBRIDGE_E2E_MODEL=.train/gen2.gguf npx vitest run test/e2e/bundled-model.test.ts`), unless --out says.
 * Where the GPU is on a machine without Node (as the one generation 3 was trained on), scripts/train/train-gpu.sh runs
 * step 3 there from the data packed by scripts/train/pack.py (README.md in this folder).
 * Data, weights, checkpoints and logs stay in .train/ (git-ignored by its own .gitignore). Then `npm run eval-model`.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { BUNDLED_MODEL_HISTORY_REQUESTS } from "../../src/models/bundled-model.js";
import { checkParity, PYTHON, torchAvailable } from "./check-parity.js";

/** The generation models/toolbridge-demo.gguf is; the others are written beside their data (.train/genN.gguf). */
const SHIPPED = "8";

const { values } = parseArgs({
  options: {
    generation: { type: "string", default: SHIPPED },
    steps: { type: "string" },
    // A safety net only: a run that hits it stops early (run again to resume).
    minutes: { type: "string", default: "600" },
    threads: { type: "string", default: "1" },
    // cpu, or cuda (an NVIDIA GPU with a current PyTorch); each recipe names the one it was trained on.
    device: { type: "string" },
    // Generations 2 and 4 to 8 start from an earlier generation's weights (generation 1's, 3's, 4's … 7's): this file, or
    // (default) the one committed at the commit COMMITTED names.
    "init-from": { type: "string" },
    // Where the GGUF goes: generation 8 (the shipped model) over models/toolbridge-demo.gguf, the others beside their
    // data (docs/models.md, "The bundled demo model").
    out: { type: "string" },
    fresh: { type: "boolean", default: false },
  },
});

/** The commits whose models/toolbridge-demo.gguf is generation 1, 3, 4, 5, 6 and 7 (what 2 and 4 to 8 start from). */
const COMMITTED = {
  "generation 1": "f38815f",
  "generation 3": "4256870",
  "generation 4": "e63aee8",
  "generation 5": "6dbd414",
  "generation 6": "434d0d6",
  "generation 7": "3e04b34",
} as const;

/** Generation 4's recipe: generations 5 to 8 are the same fine-tune one generation on, on other data, twice as long. */
const GENERATION_4 = {
  conversations: 8000,
  trainSeed: 8,
  people: 0.75,
  dim: 320,
  layers: 8,
  heads: 5,
  ff: 864,
  steps: 120,
  lr: 1e-4,
  warmup: 10,
  batchTokens: 16384,
  from: "generation 3",
  mix: 4,
  device: "cpu",
  f16: true,
} as const;

/**
 * The recipes. Generation 1: the template generator only, 3 layers, 14,400 steps from scratch. Generation 2: four
 * parts in five people-like scenarios (everyday-scenarios.ts, client-tool-scenarios.ts), one in five template
 * conversations; generation 1's vocabulary and weights, a fourth layer added as the identity, fine-tuned. Generation 3:
 * the same generators, three in four people-like, 200,000 conversations; generation 1's vocabulary, a
 * 10.2M-parameter model (320 wide, 8 layers) from scratch, 3,400 steps of 65,536 tokens (about five passes) on a GPU,
 * exported in f16 (20 MB). Generation 4: generation 3's weights fine-tuned on the CPU — 8,000 new conversations
 * (the held-out split stays seed 7's; the training draws come from seed 8) with out-of-scope requests that carry
 * numbers (a year, a count, a price: not arithmetic), 120 steps of 16,384 tokens at a twentieth of generation 3's
 * learning rate (23 minutes on this project's 2-core machine), on one thread (deterministic for the same PyTorch;
 * not yet re-run to compare the bytes). Generation 5: generation 4 fine-tuned the same way, 240 steps (about
 * two passes, 27 minutes) over 8,000 more (seed 9) of mix 5, which adds out-of-scope requests and small talk right
 * after a tool turn and answers most out-of-scope requests in one wording. Generation 6: generation 5 fine-tuned
 * the same way over 8,000 more (seed 10) of mix 6, which chains a chat's second request on ("ok now …") and asks for
 * music by genre. Generation 7: generation 6 fine-tuned the same way over 8,000 more (seed 11) of mix 7, which
 * writes notes as people do (terse, schedules) and names and places with letters outside ASCII ("Zoë", "Zürich").
 * Generation 8 (shipped): generation 7 fine-tuned the same way over 8,000 more (seed 12) of mix 8, which asks for the
 * time in ISO format more often and as people name it ("ISO 8601 timestamp for …"). Recipes 1 to 4 draw mix 4
 * (generation 4's data byte for byte; generations 1 to 3 were trained on the generator as it was at their commits).
 */
const RECIPES = {
  "1": {
    conversations: 48000,
    people: 0,
    dim: 128,
    layers: 3,
    heads: 4,
    ff: 320,
    steps: 14400,
    lr: 4e-3,
    warmup: 100,
    batchTokens: 2000,
    from: "scratch",
    device: "cpu",
    f16: false,
  },
  "2": {
    conversations: 60000,
    people: 0.8,
    dim: 128,
    layers: 4,
    heads: 4,
    ff: 320,
    steps: 9000,
    lr: 2e-3,
    warmup: 100,
    batchTokens: 2000,
    from: "generation 1",
    device: "cpu",
    f16: false,
  },
  "3": {
    conversations: 200000,
    people: 0.75,
    dim: 320,
    layers: 8,
    heads: 5,
    ff: 864,
    steps: 3400,
    lr: 2e-3,
    warmup: 300,
    batchTokens: 65536,
    from: "generation 1 vocabulary",
    device: "cuda",
    f16: true,
  },
  "4": GENERATION_4,
  "5": { ...GENERATION_4, trainSeed: 9, steps: 240, from: "generation 4", mix: 5 },
  "6": { ...GENERATION_4, trainSeed: 10, steps: 240, from: "generation 5", mix: 6 },
  "7": { ...GENERATION_4, trainSeed: 11, steps: 240, from: "generation 6", mix: 7 },
  "8": { ...GENERATION_4, trainSeed: 12, steps: 240, from: "generation 7", mix: 8 },
} as const;
const recipe = RECIPES[values.generation as keyof typeof RECIPES];
if (!recipe) {
  process.stderr.write(`--generation is 1 to 8, got ${values.generation}\n`);
  process.exit(2);
}
const steps = values.steps ?? String(recipe.steps);
const device = values.device ?? recipe.device;
const work = `.train/gen${values.generation}`;
const dataDir = `${work}/data`;
const out = values.out ?? (values.generation === SHIPPED ? "models/toolbridge-demo.gguf" : `${work}.gguf`);
const weightsDir = `${work}/weights`;

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
if (device === "cuda") {
  const r = spawnSync(PYTHON, ["-c", "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"], {
    stdio: "ignore",
  });
  if (r.status !== 0) {
    process.stderr.write(
      `generation ${values.generation} trains on an NVIDIA GPU, and ${PYTHON}'s PyTorch sees none: set TOOLBRIDGE_TRAIN_PYTHON to a Python whose PyTorch has CUDA, or pass --device cpu (the same steps on the CPU take days; see scripts/train/README.md).\n`,
    );
    process.exit(2);
  }
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
if (values.fresh) rmSync(work, { recursive: true, force: true });
mkdirSync(work, { recursive: true });
let piecesFrom: string[] = [];
let init: string[] = [];
if (recipe.from !== "scratch") {
  // The previous generation's weights and vocabulary, as train.py and generate-data.ts read them.
  const source = recipe.from === "generation 1 vocabulary" ? "generation 1" : recipe.from;
  const commit = COMMITTED[source];
  let gguf = values["init-from"];
  if (!gguf) {
    gguf = `${work}/${source.replace(" ", "-")}.gguf`;
    if (!existsSync(gguf)) {
      const r = spawnSync("git", ["show", `${commit}:models/toolbridge-demo.gguf`], {
        maxBuffer: 1 << 26,
      });
      if (r.status !== 0) {
        process.stderr.write(
          `cannot read ${source} from git (${commit}; a shallow clone lacks it): fetch it, or retrain it with --generation ${source.at(-1)} and pass --init-from <file>.\n`,
        );
        process.exit(1);
      }
      writeFileSync(gguf, r.stdout);
    }
  }
  step(`${source} weights`, process.execPath, [
    ...tsx,
    "scripts/train/gguf-to-weights.ts",
    "--gguf",
    gguf,
    "--out",
    `${work}/init`,
  ]);
  piecesFrom = ["--pieces-from", `${work}/init/pieces.json`];
  if (recipe.from !== "generation 1 vocabulary") init = ["--init", `${work}/init`];
}
// The same options made the data on disk: keep it (a resumed run needs the very same data; generating it again takes
// minutes and gives the same bytes).
const trainSeed = "trainSeed" in recipe ? ["--train-seed", String(recipe.trainSeed)] : [];
const mix = "mix" in recipe ? recipe.mix : 4;
const dataOptions = {
  seed: 7,
  ...(trainSeed.length ? { trainSeed } : {}),
  mix,
  train: recipe.conversations,
  people: recipe.people,
  piecesFrom,
};
const made = `${dataDir}/options.json`;
const reuse = existsSync(made) && readFileSync(made, "utf8") === JSON.stringify(dataOptions);
if (reuse) process.stdout.write(`\n== generate data: reusing ${dataDir} (same options)\n`);
else {
  step("generate data", process.execPath, [
    ...tsx,
    "scripts/train/generate-data.ts",
    "--seed",
    "7",
    ...trainSeed,
    "--mix",
    String(mix),
    "--train",
    String(recipe.conversations),
    "--people",
    String(recipe.people),
    ...piecesFrom,
    "--out",
    dataDir,
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
  dataDir,
  "--out",
  weightsDir,
  ...init,
  "--resume",
  "--steps",
  steps,
  "--minutes",
  values.minutes,
  "--threads",
  values.threads,
  "--device",
  device,
  "--dim",
  String(recipe.dim),
  "--layers",
  String(recipe.layers),
  "--heads",
  String(recipe.heads),
  "--ff",
  String(recipe.ff),
  "--batch-tokens",
  String(recipe.batchTokens),
  "--lr",
  String(recipe.lr),
  "--warmup",
  String(recipe.warmup),
]);
const manifest = JSON.parse(readFileSync(`${weightsDir}/manifest.json`, "utf8")) as {
  steps: number;
  minutes: number;
};
if (manifest.steps < Number(steps)) {
  process.stderr.write(
    `stopped at step ${manifest.steps} of ${steps} (the --minutes safety net): run again to resume.\n`,
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
  weightsDir,
  "--pieces",
  `${dataDir}/pieces.json`,
  "--out",
  out,
  "--history",
  values.generation === "1" ? "1" : String(BUNDLED_MODEL_HISTORY_REQUESTS),
  ...(recipe.f16 ? ["--f16"] : []),
]);
process.stdout.write(`whole pipeline: ${((Date.now() - pipelineStarted) / 60000).toFixed(1)} min\n`);
