/**
 * `tsx scripts/train/export-gguf.ts [--weights .train/weights] [--pieces .train/data/pieces.json] [--out models/toolbridge-demo.gguf]`
 * Turns train.py's raw f32 tensors into a GGUF with the project's writer: the ChatML vocabulary with the learned
 * pieces, a ChatML template, and the hints `toolbridge run` reads to render prompts exactly as in training.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { BUNDLED_MODEL_METADATA, MODEL_HISTORY_KEY } from "../../src/models/bundled-model.js";
import {
  buildLlamaGguf,
  CHATML_TEMPLATE,
  createChatMlVocabulary,
  type LlamaWeights,
} from "../../src/models/gguf/llama-gguf.js";
import { encodeGguf, type GgufTensorType } from "../../src/models/gguf/write-gguf.js";

interface Manifest {
  vocab: number;
  dim: number;
  layers: number;
  heads: number;
  ff: number;
  context: number;
  rope_base: number;
  eps: number;
  tensors: Record<string, number[]>;
  [key: string]: unknown;
}

function readTensor(dir: string, manifest: Manifest, name: string): Float32Array {
  const shape = manifest.tensors[name];
  if (!shape) throw new Error(`${name} missing from ${dir}/manifest.json; re-run train.py`);
  const bytes = readFileSync(path.join(dir, `${name}.f32`));
  const data = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const expected = shape.reduce((a, b) => a * b, 1);
  if (data.length !== expected) throw new Error(`${name}: ${data.length} values, manifest says ${expected}`);
  return data;
}

export interface ExportOptions {
  weightsDir: string;
  pieces: readonly string[];
  name?: string;
  matrixType?: GgufTensorType;
  /** Requests of a chat the model is shown (the `toolbridge.history` hint); default the bundled model's. */
  historyRequests?: number;
}

/** The GGUF bytes of trained (or parity-test) weights. */
export function exportGguf(options: ExportOptions): Buffer {
  const dir = options.weightsDir;
  const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8")) as Manifest;
  const vocabulary = createChatMlVocabulary({ pieces: options.pieces });
  if (vocabulary.tokens.length !== manifest.vocab) {
    throw new Error(
      `the weights have ${manifest.vocab} tokens but the pieces give ${vocabulary.tokens.length}; use the pieces the model was trained with`,
    );
  }
  const t = (name: string) => readTensor(dir, manifest, name);
  const weights: LlamaWeights = {
    tokenEmbedding: t("token_embd"),
    layers: Array.from({ length: manifest.layers }, (_, i) => ({
      attnNorm: t(`blk.${i}.attn_norm`),
      wq: t(`blk.${i}.wq`),
      wk: t(`blk.${i}.wk`),
      wv: t(`blk.${i}.wv`),
      wo: t(`blk.${i}.wo`),
      ffnNorm: t(`blk.${i}.ffn_norm`),
      wGate: t(`blk.${i}.w_gate`),
      wUp: t(`blk.${i}.w_up`),
      wDown: t(`blk.${i}.w_down`),
    })),
    outputNorm: t("output_norm"),
  };
  return encodeGguf(
    buildLlamaGguf({
      name: options.name ?? "toolbridge-demo",
      hyper: {
        contextLength: manifest.context,
        embeddingLength: manifest.dim,
        blockCount: manifest.layers,
        feedForwardLength: manifest.ff,
        headCount: manifest.heads,
        ropeFreqBase: manifest.rope_base,
        rmsEpsilon: manifest.eps,
      },
      vocabulary,
      weights,
      chatTemplate: CHATML_TEMPLATE,
      matrixType: options.matrixType ?? "f32",
      extraMetadata: Object.entries({
        ...BUNDLED_MODEL_METADATA,
        ...(options.historyRequests !== undefined
          ? { [MODEL_HISTORY_KEY]: `last-requests:${options.historyRequests}` }
          : {}),
      }).map(([key, value]) => [key, { type: "string", value }] as const),
    }),
  );
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      weights: { type: "string", default: ".train/weights" },
      pieces: { type: "string", default: ".train/data/pieces.json" },
      out: { type: "string", default: "models/toolbridge-demo.gguf" },
      f16: { type: "boolean", default: false },
      // Requests of a chat the model was trained to see (generation 1: 1).
      history: { type: "string" },
    },
  });
  const pieces = JSON.parse(readFileSync(values.pieces, "utf8")) as string[];
  const bytes = exportGguf({
    weightsDir: values.weights,
    pieces,
    matrixType: values.f16 ? "f16" : "f32",
    ...(values.history ? { historyRequests: Number(values.history) } : {}),
  });
  mkdirSync(path.dirname(values.out), { recursive: true });
  const temp = `${values.out}.tmp-${process.pid}`;
  writeFileSync(temp, bytes);
  renameSync(temp, values.out);
  process.stdout.write(`wrote ${values.out} (${(bytes.length / 1e6).toFixed(2)} MB)\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  });
}
