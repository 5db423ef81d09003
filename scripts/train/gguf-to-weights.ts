/**
 * `tsx scripts/train/gguf-to-weights.ts --gguf models/toolbridge-demo.gguf --out .train/gen1`: the inverse of
 * export-gguf.ts for a model this pipeline made (llama architecture, f32 or f16 tensors, the ChatML vocabulary with learned
 * pieces): train.py's raw tensors and manifest (for `--init`, a warm start) and the vocabulary's pieces.json (for
 * generate-data.ts `--pieces-from`, so new data is tokenized with the very vocabulary the weights know).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { readGgufFileInfo } from "node-llama-cpp";
import { createChatMlVocabulary } from "../../src/models/gguf/llama-gguf.js";
import { fromFloat16Bits } from "../../src/models/gguf/write-gguf.js";

/** GGUF tensor names → train.py's export names. */
const NAMES: Record<string, string> = {
  attn_norm: "attn_norm",
  attn_q: "wq",
  attn_k: "wk",
  attn_v: "wv",
  attn_output: "wo",
  ffn_norm: "ffn_norm",
  ffn_gate: "w_gate",
  ffn_up: "w_up",
  ffn_down: "w_down",
};

const GGML_F32 = 0;
const GGML_F16 = 1;

/** Little-endian f16 values as f32 bytes: an f16 export (the shipped model) read back for a warm start. */
function halvesToFloats(halves: Uint8Array): Uint8Array {
  const view = new DataView(halves.buffer, halves.byteOffset, halves.length);
  const floats = new Float32Array(halves.length / 2);
  for (let i = 0; i < floats.length; i++) floats[i] = fromFloat16Bits(view.getUint16(i * 2, true));
  return new Uint8Array(floats.buffer);
}

export async function ggufToWeights(
  gguf: string,
  out: string,
): Promise<{ pieces: string[]; layers: number }> {
  const info = await readGgufFileInfo(gguf, { readTensorInfo: true, logWarnings: false });
  const meta = info.metadata as unknown as {
    general: { alignment?: number };
    tokenizer: { ggml: { tokens: string[] } };
    llama: {
      context_length: number;
      embedding_length: number;
      block_count: number;
      feed_forward_length: number;
      attention: { head_count: number; layer_norm_rms_epsilon: number };
      rope: { freq_base: number };
    };
  };
  const bytes = readFileSync(gguf);
  const alignment = meta.general?.alignment ?? 32;
  const dataStart = Math.ceil((info.infoEndOffset ?? 0) / alignment) * alignment;
  if (!info.infoEndOffset) throw new Error(`cannot find where ${gguf}'s tensor data starts`);
  mkdirSync(out, { recursive: true });
  const tensors: Record<string, number[]> = {};
  for (const t of info.tensorInfo ?? []) {
    if (t.ggmlType !== GGML_F32 && t.ggmlType !== GGML_F16)
      throw new Error(`${t.name} is neither f32 nor f16: this pipeline did not export it`);
    const count = t.dimensions.reduce((a: number, b) => a * Number(b), 1);
    const start = dataStart + Number(t.offset);
    const m = /^blk\.(\d+)\.(\w+)\.weight$/.exec(t.name);
    const name = m ? `blk.${m[1]}.${NAMES[m[2] as string]}` : t.name.replace(/\.weight$/, "");
    const raw =
      t.ggmlType === GGML_F32
        ? bytes.subarray(start, start + count * 4)
        : halvesToFloats(bytes.subarray(start, start + count * 2));
    writeFileSync(path.join(out, `${name}.f32`), raw);
    // GGUF lists dimensions fastest first; PyTorch's (out, in) shape is the reverse.
    tensors[name] = [...t.dimensions].map(Number).reverse();
  }
  const l = meta.llama;
  const manifest = {
    vocab: meta.tokenizer.ggml.tokens.length,
    dim: l.embedding_length,
    layers: l.block_count,
    heads: l.attention.head_count,
    ff: l.feed_forward_length,
    context: l.context_length,
    rope_base: l.rope.freq_base,
    eps: Number(l.attention.layer_norm_rms_epsilon.toPrecision(6)),
    tensors,
    source: path.basename(gguf),
  };
  writeFileSync(path.join(out, "manifest.json"), `${JSON.stringify(manifest, null, 1)}\n`);
  // The pieces: every token after the ChatML vocabulary's fixed ones, in order.
  const fixed = createChatMlVocabulary({ pieces: [] }).tokens.length;
  const pieces = meta.tokenizer.ggml.tokens.slice(fixed).map((t) => t.replace(/▁/g, " "));
  const check = createChatMlVocabulary({ pieces }).tokens.map((t) => t.text);
  if (JSON.stringify(check) !== JSON.stringify(meta.tokenizer.ggml.tokens))
    throw new Error(
      "the vocabulary is not a ChatML vocabulary with pieces: this pipeline did not make the model",
    );
  writeFileSync(path.join(out, "pieces.json"), `${JSON.stringify(pieces)}\n`);
  return { pieces, layers: l.block_count };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      gguf: { type: "string", default: "models/toolbridge-demo.gguf" },
      out: { type: "string", default: ".train/init" },
    },
  });
  const r = await ggufToWeights(values.gguf, values.out);
  process.stdout.write(`wrote ${values.out}: ${r.layers} layers, ${r.pieces.length} pieces\n`);
  process.exit(0);
}
