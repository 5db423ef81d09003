import type { GgufFile, GgufTensor, GgufTensorType, GgufValue } from "./write-gguf.js";

/**
 * Build the GGUF description of a llama-architecture model: the hyper-parameters, tokenizer and tensors llama.cpp
 * needs (see ../shared/notes/node-llama-cpp.md for which keys are required in practice).
 */

export interface LlamaHyperParameters {
  contextLength: number;
  embeddingLength: number;
  blockCount: number;
  feedForwardLength: number;
  headCount: number;
  headCountKv?: number;
  ropeFreqBase?: number;
  rmsEpsilon?: number;
}

/** llama.cpp token types. */
export const TokenType = { normal: 1, unknown: 2, control: 3, userDefined: 4, byte: 6 } as const;

export interface VocabularyToken {
  text: string;
  score: number;
  type: (typeof TokenType)[keyof typeof TokenType];
}

export interface Vocabulary {
  tokens: VocabularyToken[];
  bosId: number;
  eosId: number;
  eotId?: number;
  unknownId: number;
  paddingId?: number;
  addBos: boolean;
}

export interface ChatMlVocabularyOptions {
  /** Extra user-defined tokens matched whole in text (tool-call markers). */
  userDefinedTokens?: readonly string[];
  /** Multi-character pieces (e.g. learned merges), most useful first. */
  pieces?: readonly string[];
}

export const CHATML_TEMPLATE =
  "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}" +
  "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

export const DEFAULT_USER_DEFINED_TOKENS = [
  "<tool_call>",
  "</tool_call>",
  "<tool_response>",
  "</tool_response>",
  "<think>",
  "</think>",
] as const;

/**
 * A SentencePiece-style ("llama") vocabulary that round-trips any text: control tokens for ChatML, a few
 * user-defined markers, the 256 byte-fallback tokens, `▁` (SentencePiece's space) and printable ASCII, plus optional
 * longer pieces. Longer pieces get higher scores so the SPM merge prefers them.
 */
export function createChatMlVocabulary(options: ChatMlVocabularyOptions = {}): Vocabulary {
  const tokens: VocabularyToken[] = [
    { text: "<unk>", score: 0, type: TokenType.unknown },
    { text: "<s>", score: 0, type: TokenType.control },
    { text: "</s>", score: 0, type: TokenType.control },
    { text: "<|im_start|>", score: 0, type: TokenType.control },
    { text: "<|im_end|>", score: 0, type: TokenType.control },
  ];
  const seen = new Set(tokens.map((t) => t.text));
  const add = (token: VocabularyToken) => {
    if (seen.has(token.text)) return;
    seen.add(token.text);
    tokens.push(token);
  };
  for (const text of options.userDefinedTokens ?? DEFAULT_USER_DEFINED_TOKENS) {
    add({ text, score: 0, type: TokenType.userDefined });
  }
  for (let byte = 0; byte < 256; byte++) {
    add({ text: `<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`, score: 0, type: TokenType.byte });
  }
  add({ text: "▁", score: -1000, type: TokenType.normal });
  for (let code = 0x21; code <= 0x7e; code++)
    add({ text: String.fromCharCode(code), score: -1000, type: TokenType.normal });
  (options.pieces ?? []).forEach((piece, rank) => {
    // SPM merges the highest-scoring adjacent pair first; rank keeps a deterministic preference among pieces.
    add({ text: piece.replace(/ /g, "▁"), score: -rank / 1000, type: TokenType.normal });
  });
  return { tokens, bosId: 1, eosId: 4, eotId: 4, unknownId: 0, paddingId: 2, addBos: false };
}

export interface LlamaWeights {
  /** [vocab, embd] row-major (each token's embedding contiguous). */
  tokenEmbedding: Float32Array;
  layers: Array<{
    attnNorm: Float32Array;
    wq: Float32Array; // [embd out, embd in] row-major (PyTorch Linear layout)
    wk: Float32Array; // [kv*hd, embd]
    wv: Float32Array; // [kv*hd, embd]
    wo: Float32Array; // [embd, embd]
    ffnNorm: Float32Array;
    wGate: Float32Array; // [ff, embd]
    wUp: Float32Array; // [ff, embd]
    wDown: Float32Array; // [embd, ff]
  }>;
  outputNorm: Float32Array;
  /** [vocab, embd]; omit to tie with the token embedding. */
  output?: Float32Array;
}

export interface LlamaGgufOptions {
  name: string;
  hyper: LlamaHyperParameters;
  vocabulary: Vocabulary;
  weights: LlamaWeights;
  chatTemplate?: string;
  /** Storage type of the matrices; norms always stay f32. */
  matrixType?: GgufTensorType;
  extraMetadata?: ReadonlyArray<readonly [string, GgufValue]>;
}

export function buildLlamaGguf(options: LlamaGgufOptions): GgufFile {
  const { hyper, vocabulary, weights } = options;
  const embd = hyper.embeddingLength;
  const heads = hyper.headCount;
  const kvHeads = hyper.headCountKv ?? heads;
  if (embd % heads !== 0) throw new Error(`embeddingLength ${embd} must be divisible by headCount ${heads}`);
  const headDim = embd / heads;
  const vocab = vocabulary.tokens.length;
  const ff = hyper.feedForwardLength;
  const matrix = options.matrixType ?? "f32";

  const metadata: Array<readonly [string, GgufValue]> = [
    ["general.architecture", { type: "string", value: "llama" }],
    ["general.name", { type: "string", value: options.name }],
    ["general.alignment", { type: "u32", value: 32 }],
    ["llama.context_length", { type: "u32", value: hyper.contextLength }],
    ["llama.embedding_length", { type: "u32", value: embd }],
    ["llama.block_count", { type: "u32", value: hyper.blockCount }],
    ["llama.feed_forward_length", { type: "u32", value: ff }],
    ["llama.attention.head_count", { type: "u32", value: heads }],
    ["llama.attention.head_count_kv", { type: "u32", value: kvHeads }],
    ["llama.rope.dimension_count", { type: "u32", value: headDim }],
    ["llama.rope.freq_base", { type: "f32", value: hyper.ropeFreqBase ?? 10_000 }],
    ["llama.attention.layer_norm_rms_epsilon", { type: "f32", value: hyper.rmsEpsilon ?? 1e-5 }],
    ["llama.vocab_size", { type: "u32", value: vocab }],
    ["tokenizer.ggml.model", { type: "string", value: "llama" }],
    [
      "tokenizer.ggml.tokens",
      { type: "array", itemType: "string", values: vocabulary.tokens.map((t) => t.text) },
    ],
    [
      "tokenizer.ggml.scores",
      { type: "array", itemType: "f32", values: vocabulary.tokens.map((t) => t.score) },
    ],
    [
      "tokenizer.ggml.token_type",
      { type: "array", itemType: "i32", values: vocabulary.tokens.map((t) => t.type) },
    ],
    ["tokenizer.ggml.bos_token_id", { type: "u32", value: vocabulary.bosId }],
    ["tokenizer.ggml.eos_token_id", { type: "u32", value: vocabulary.eosId }],
    ["tokenizer.ggml.unknown_token_id", { type: "u32", value: vocabulary.unknownId }],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: vocabulary.addBos }],
    ["tokenizer.ggml.add_eos_token", { type: "bool", value: false }],
    // Without this the SPM tokenizer inserts a space after every special token and call markers never match.
    ["tokenizer.ggml.add_space_prefix", { type: "bool", value: false }],
  ];
  if (vocabulary.eotId !== undefined)
    metadata.push(["tokenizer.ggml.eot_token_id", { type: "u32", value: vocabulary.eotId }]);
  if (vocabulary.paddingId !== undefined) {
    metadata.push(["tokenizer.ggml.padding_token_id", { type: "u32", value: vocabulary.paddingId }]);
  }
  if (options.chatTemplate)
    metadata.push(["tokenizer.chat_template", { type: "string", value: options.chatTemplate }]);
  metadata.push(...(options.extraMetadata ?? []));

  const expect = (name: string, data: Float32Array, size: number) => {
    if (data.length !== size) throw new Error(`${name}: expected ${size} values, got ${data.length}`);
    return data;
  };
  const tensors: GgufTensor[] = [
    {
      name: "token_embd.weight",
      dims: [embd, vocab],
      type: matrix,
      data: expect("token_embd", weights.tokenEmbedding, embd * vocab),
    },
  ];
  weights.layers.forEach((layer, i) => {
    const p = `blk.${i}.`;
    tensors.push(
      {
        name: `${p}attn_norm.weight`,
        dims: [embd],
        type: "f32",
        data: expect(`${p}attn_norm`, layer.attnNorm, embd),
      },
      {
        name: `${p}attn_q.weight`,
        dims: [embd, embd],
        type: matrix,
        data: expect(`${p}attn_q`, layer.wq, embd * embd),
      },
      {
        name: `${p}attn_k.weight`,
        dims: [embd, kvHeads * headDim],
        type: matrix,
        data: expect(`${p}attn_k`, layer.wk, embd * kvHeads * headDim),
      },
      {
        name: `${p}attn_v.weight`,
        dims: [embd, kvHeads * headDim],
        type: matrix,
        data: expect(`${p}attn_v`, layer.wv, embd * kvHeads * headDim),
      },
      {
        name: `${p}attn_output.weight`,
        dims: [embd, embd],
        type: matrix,
        data: expect(`${p}attn_output`, layer.wo, embd * embd),
      },
      {
        name: `${p}ffn_norm.weight`,
        dims: [embd],
        type: "f32",
        data: expect(`${p}ffn_norm`, layer.ffnNorm, embd),
      },
      {
        name: `${p}ffn_gate.weight`,
        dims: [embd, ff],
        type: matrix,
        data: expect(`${p}ffn_gate`, layer.wGate, embd * ff),
      },
      {
        name: `${p}ffn_up.weight`,
        dims: [embd, ff],
        type: matrix,
        data: expect(`${p}ffn_up`, layer.wUp, embd * ff),
      },
      {
        name: `${p}ffn_down.weight`,
        dims: [ff, embd],
        type: matrix,
        data: expect(`${p}ffn_down`, layer.wDown, ff * embd),
      },
    );
  });
  tensors.push({
    name: "output_norm.weight",
    dims: [embd],
    type: "f32",
    data: expect("output_norm", weights.outputNorm, embd),
  });
  if (weights.output) {
    tensors.push({
      name: "output.weight",
      dims: [embd, vocab],
      type: matrix,
      data: expect("output", weights.output, embd * vocab),
    });
  }
  if (weights.layers.length !== hyper.blockCount) {
    throw new Error(`blockCount is ${hyper.blockCount} but ${weights.layers.length} layers were given`);
  }
  return { metadata, tensors };
}
