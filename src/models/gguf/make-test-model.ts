import { renameSync, writeFileSync } from "node:fs";
import {
  buildLlamaGguf,
  CHATML_TEMPLATE,
  type ChatMlVocabularyOptions,
  createChatMlVocabulary,
  type LlamaWeights,
} from "./llama-gguf.js";
import { encodeGguf } from "./write-gguf.js";

export interface TestModelOptions extends ChatMlVocabularyOptions {
  /** Same seed → byte-identical file. Default 1. */
  seed?: number;
  embeddingLength?: number;
  blockCount?: number;
  headCount?: number;
  feedForwardLength?: number;
  contextLength?: number;
  chatTemplate?: string;
}

/** mulberry32: a tiny, well-distributed seeded PRNG (reproducible weights without a dependency). */
export function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussianFill(size: number, std: number, random: () => number): Float32Array {
  const out = new Float32Array(size);
  for (let i = 0; i < size; i += 2) {
    const u = Math.max(random(), 1e-12);
    const v = random();
    const r = Math.sqrt(-2 * Math.log(u)) * std;
    out[i] = r * Math.cos(2 * Math.PI * v);
    if (i + 1 < size) out[i + 1] = r * Math.sin(2 * Math.PI * v);
  }
  return out;
}

/**
 * A tiny llama-architecture model with random weights, a byte-level vocabulary and a ChatML template: real enough
 * for node-llama-cpp to load and generate with (grammar, function calling, streaming), small enough to write in
 * milliseconds. Its output is noise; tests check validity, never sense.
 */
export function makeTestModel(options: TestModelOptions = {}): Buffer {
  const random = createRandom(options.seed ?? 1);
  const embd = options.embeddingLength ?? 64;
  const heads = options.headCount ?? 4;
  const ff = options.feedForwardLength ?? 128;
  const blocks = options.blockCount ?? 2;
  const vocabulary = createChatMlVocabulary(options);
  const vocab = vocabulary.tokens.length;
  const ones = () => new Float32Array(embd).fill(1);
  const weights: LlamaWeights = {
    tokenEmbedding: gaussianFill(vocab * embd, 0.5, random),
    layers: Array.from({ length: blocks }, () => ({
      attnNorm: ones(),
      wq: gaussianFill(embd * embd, 0.1, random),
      wk: gaussianFill(embd * embd, 0.1, random),
      wv: gaussianFill(embd * embd, 0.1, random),
      wo: gaussianFill(embd * embd, 0.1, random),
      ffnNorm: ones(),
      wGate: gaussianFill(ff * embd, 0.1, random),
      wUp: gaussianFill(ff * embd, 0.1, random),
      wDown: gaussianFill(embd * ff, 0.1, random),
    })),
    outputNorm: ones(),
  };
  return encodeGguf(
    buildLlamaGguf({
      name: `toolbridge-test-model-seed-${options.seed ?? 1}`,
      hyper: {
        contextLength: options.contextLength ?? 16_384,
        embeddingLength: embd,
        blockCount: blocks,
        feedForwardLength: ff,
        headCount: heads,
      },
      vocabulary,
      weights,
      chatTemplate: options.chatTemplate ?? CHATML_TEMPLATE,
    }),
  );
}

/** Write the test model atomically (temp file + rename), so a crash never leaves half a model under the final name. */
export function writeTestModel(path: string, options: TestModelOptions = {}): void {
  const temp = `${path}.tmp-${process.pid}`;
  writeFileSync(temp, makeTestModel(options));
  renameSync(temp, path);
}
