/**
 * npm run train-model runs this first: `tsx scripts/train/generate-data.ts [--seed N] [--train N] [--held-out N]`.
 * Writes .train/data/: the learned vocabulary pieces, the training conversations as token ids with a loss mask
 * (tokenized by node-llama-cpp itself on the model's own vocabulary, so ids match inference exactly), the held-out
 * requests with their expected calls, and a readable sample.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import type { LlamaModel } from "node-llama-cpp";
import { createChatMlVocabulary } from "../../src/models/gguf/llama-gguf.js";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { buildDataset, type Conversation } from "./build-dataset.js";
import { extraCharacters, learnPieces } from "./learn-pieces.js";
import { MIXES, NEWEST_MIX } from "./scenario.js";

export const DEFAULT_DATA_DIR = ".train/data";
const SPECIALS = [
  "<|im_start|>",
  "<|im_end|>",
  "<tool_call>",
  "</tool_call>",
  "<tool_response>",
  "</tool_response>",
  "<think>",
  "</think>",
];

/** Token ids of each conversation and which of them carry loss; checks that piecewise = whole tokenization. */
export function tokenizeConversation(model: LlamaModel, c: Conversation): { ids: number[]; mask: number[] } {
  const ids: number[] = [];
  const mask: number[] = [];
  let at = 0;
  const push = (text: string, learn: number) => {
    if (!text) return;
    for (const t of model.tokenize(text, true)) {
      ids.push(t as number);
      mask.push(learn);
    }
  };
  for (const t of c.targets) {
    push(c.text.slice(at, t.start), 0);
    push(c.text.slice(t.start, t.end), 1);
    at = t.end;
  }
  push(c.text.slice(at), 0);
  const whole = model.tokenize(c.text, true) as number[];
  if (whole.length !== ids.length || whole.some((t, i) => t !== ids[i])) {
    throw new Error(`tokenization differs at a turn boundary in: ${JSON.stringify(c.text.slice(0, 300))}`);
  }
  return { ids, mask };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      seed: { type: "string", default: "7" },
      // The training conversations' own seed (the held-out split stays --seed's): data for a fine-tune.
      "train-seed": { type: "string" },
      "held-out": { type: "string", default: "260" },
      // The generation whose scenario mix to draw: 7 (default), or 4 to 6 (what generation 4, 5 or 6 was trained on).
      mix: { type: "string", default: String(NEWEST_MIX) },
      train: { type: "string", default: "16000" },
      // Share of conversations written as people-like scenarios (the rest from the template generator).
      people: { type: "string", default: "0" },
      pieces: { type: "string", default: "600" },
      // Reuse a vocabulary (pieces.json) instead of learning one: to continue training an existing model.
      "pieces-from": { type: "string" },
      out: { type: "string", default: DEFAULT_DATA_DIR },
    },
  });
  const mix = MIXES.find((m) => String(m) === values.mix);
  if (mix === undefined) {
    process.stderr.write(`--mix is ${MIXES.join(", ")}, got ${values.mix}\n`);
    process.exit(2);
  }
  const DATA_DIR = path.resolve(values.out);
  const started = performance.now();
  const dataset = await buildDataset({
    seed: Number(values.seed),
    train: Number(values.train),
    heldOut: Number(values["held-out"]),
    people: Number(values.people),
    mix,
    ...(values["train-seed"] ? { trainSeed: Number(values["train-seed"]) } : {}),
  });
  const texts = dataset.train.map((c) => c.text);
  const pieces = values["pieces-from"]
    ? (JSON.parse(readFileSync(values["pieces-from"], "utf8")) as string[])
    : [...extraCharacters(texts), ...learnPieces(texts.slice(0, 8000), Number(values.pieces), SPECIALS)];
  mkdirSync(DATA_DIR, { recursive: true });
  writeFileSync(path.join(DATA_DIR, "pieces.json"), `${JSON.stringify(pieces)}\n`);
  const vocabularySize = createChatMlVocabulary({ pieces }).tokens.length;
  writeFileSync(path.join(DATA_DIR, "vocab-size.json"), `${JSON.stringify({ vocab: vocabularySize })}\n`);

  const vocabModelPath = path.join(DATA_DIR, "vocab.gguf");
  writeTestModel(vocabModelPath, {
    pieces,
    embeddingLength: 16,
    headCount: 2,
    feedForwardLength: 16,
    blockCount: 1,
  });
  const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
  const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath: vocabModelPath });

  const offsets = [0];
  const allIds: number[] = [];
  const allMask: number[] = [];
  for (const c of dataset.train) {
    const { ids, mask } = tokenizeConversation(model, c);
    allIds.push(...ids);
    allMask.push(...mask);
    offsets.push(allIds.length);
  }
  writeFileSync(path.join(DATA_DIR, "train.ids.i32"), Buffer.from(new Int32Array(allIds).buffer));
  writeFileSync(path.join(DATA_DIR, "train.mask.u8"), Buffer.from(new Uint8Array(allMask).buffer));
  writeFileSync(path.join(DATA_DIR, "train.offsets.i32"), Buffer.from(new Int32Array(offsets).buffer));
  writeFileSync(
    path.join(DATA_DIR, "heldout.jsonl"),
    dataset.heldOut.map((h) => JSON.stringify(h)).join("\n") + "\n",
  );
  writeFileSync(
    path.join(DATA_DIR, "sample.txt"),
    dataset.train
      .slice(0, 60)
      .map((c) => c.text)
      .join("\n\n=====\n\n"),
  );
  const lengths = offsets.slice(1).map((o, i) => o - (offsets[i] as number));
  const kinds: Record<string, number> = {};
  for (const c of dataset.train) kinds[c.kind] = (kinds[c.kind] ?? 0) + 1;
  const stats = {
    seed: Number(values.seed),
    kinds,
    conversations: dataset.train.length,
    heldOut: dataset.heldOut.length,
    tokens: allIds.length,
    lossTokens: allMask.reduce((a, b) => a + b, 0),
    pieces: pieces.length,
    vocabularySize,
    meanLength: allIds.length / dataset.train.length,
    // A loop, not Math.max(...lengths): spreading 200,000 arguments overflows the call stack.
    maxLength: lengths.reduce((a, b) => Math.max(a, b), 0),
    seconds: (performance.now() - started) / 1000,
  };
  writeFileSync(path.join(DATA_DIR, "stats.json"), `${JSON.stringify(stats, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(stats)}\n`);
  await model.dispose();
  await llama.dispose();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
