import type { Llama, LlamaContext, LlamaContextSequence, LlamaModel, TokenBias } from "node-llama-cpp";
import { ModelConfigError } from "../model-errors.js";
import { chooseThreads, TINY_MODEL_PARAMETERS } from "./choose-threads.js";

export interface LlamaRuntimeOptions {
  modelPath: string;
  /** `"auto"` uses a GPU when a prebuilt binary for it is installed; `false` forces CPU. Nothing is ever downloaded or built. */
  gpu?: "auto" | false;
  threads?: number;
  contextSize?: number;
  /** Sequences (concurrent generations) per context. Default 2. */
  sequences?: number;
  onLoadProgress?: (progress: number) => void;
}

export interface LoadedLlama {
  llama: Llama;
  model: LlamaModel;
  parameters: number | undefined;
  threads: number;
  contextSize: number;
  /**
   * Tiny models only: a bias banning the byte tokens 0x80–0xFF. A random model strings them into invalid UTF-8, which
   * node-llama-cpp's grammar and its own parameter check count differently ("Expected at most 64 characters but got
   * 65"). Real models write valid UTF-8 and keep those tokens.
   */
  tokenBias: TokenBias | undefined;
  /**
   * Tiny models only: `tokenBias` for the one token after a word written out from a tool result (copied-words.ts),
   * so the word ends where the result's did ("Asia/Almaty", not "Asia/AlmatyAaiun"): it also bans every token that does
   * not begin with white space, sentence punctuation (. , ; : ! ?) or `closer` — the bracket or quote that closes the one
   * the word began after, so "(Pacific/Guam" may close but "Pacific/Guam" is not followed by `)"}}`. Made on first use
   * for each closer: it reads the whole vocabulary.
   */
  wordEndBias(closer: string): Promise<TokenBias | undefined>;
  /**
   * Tiny models only: `tokenBias` without the byte tokens of `text`'s characters outside ASCII — for a generation whose
   * grammar may require one of them (node-llama-cpp's function parameters: an enum of "Zürich" and "Genève"). A ban
   * covering every token the grammar allows leaves the sampler nothing, and node-llama-cpp's generation never returns,
   * not even to its abort signal. Made on first use for each set of bytes.
   */
  biasWriting(text: string): Promise<TokenBias | undefined>;
  /** Borrow a context sequence for one generation; give it back with `release`. */
  acquire(signal?: AbortSignal): Promise<LlamaContextSequence>;
  release(sequence: LlamaContextSequence): void;
  /**
   * Keep `sequence` out of the pool until `generation` settles, whenever it is released: a generation node-llama-cpp
   * left stuck (see pumpGeneration) still holds it, and the next one given it would wait behind it for good.
   */
  holdUntil(sequence: LlamaContextSequence, generation: Promise<unknown>): void;
}

const llamas = new Map<string, Promise<Llama>>();
const models = new Map<string, Promise<LoadedLlama>>();

function getLlamaOnce(gpu: "auto" | false): Promise<Llama> {
  let p = llamas.get(String(gpu));
  if (!p) {
    p = import("node-llama-cpp").then(({ getLlama, LlamaLogLevel }) =>
      getLlama({
        gpu,
        build: "never",
        skipDownload: true,
        progressLogs: false,
        logLevel: LlamaLogLevel.error,
      }),
    );
    p.catch(() => llamas.delete(String(gpu)));
    llamas.set(String(gpu), p);
  }
  return p;
}

function countParameters(model: LlamaModel): number | undefined {
  const tensors = model.fileInfo.fullTensorInfo;
  if (!tensors) return undefined;
  let total = 0;
  for (const t of tensors) total += t.dimensions.reduce((a: number, d) => a * Number(d), 1);
  return total;
}

/**
 * One loaded model per file (and GPU setting), shared by every run in the process; its contexts hand out sequences,
 * one per concurrent generation, and grow by another context when all are busy. Loading reports progress to every
 * caller that asked while it was under way.
 */
export function loadLlama(options: LlamaRuntimeOptions): Promise<LoadedLlama> {
  const gpu = options.gpu ?? "auto";
  const key = JSON.stringify([options.modelPath, gpu, options.threads ?? null, options.contextSize ?? null]);
  let p = models.get(key);
  if (!p) {
    const listeners = new Set<(n: number) => void>();
    if (options.onLoadProgress) listeners.add(options.onLoadProgress);
    p = load(options, gpu, (n) => {
      for (const l of listeners) l(n);
    });
    (p as Promise<LoadedLlama> & { listeners?: Set<(n: number) => void> }).listeners = listeners;
    p.catch(() => models.delete(key));
    models.set(key, p);
  } else if (options.onLoadProgress) {
    const listeners = (p as Promise<LoadedLlama> & { listeners?: Set<(n: number) => void> }).listeners;
    listeners?.add(options.onLoadProgress);
    void p.then(
      () => options.onLoadProgress?.(1),
      () => {},
    );
  }
  return p;
}

async function load(
  options: LlamaRuntimeOptions,
  gpu: "auto" | false,
  progress: (n: number) => void,
): Promise<LoadedLlama> {
  const { existsSync } = await import("node:fs");
  if (!existsSync(options.modelPath)) {
    throw new ModelConfigError(
      `GGUF file not found: ${options.modelPath}. Pass the path of a .gguf model file.`,
    );
  }
  const llama = await getLlamaOnce(gpu);
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: options.modelPath, onLoadProgress: progress });
  } catch (error) {
    throw new ModelConfigError(
      `Cannot load ${options.modelPath}: ${(error as Error).message}. Is it a GGUF model file llama.cpp supports?`,
    );
  }
  progress(1);
  const parameters = countParameters(model);
  const tokenBias =
    parameters !== undefined && parameters < TINY_MODEL_PARAMETERS ? await banHighBytes(model) : undefined;
  const threads = chooseThreads(parameters, options.threads);
  const trained = model.trainContextSize || 4096;
  // A tiny model's KV cache costs next to nothing, while its byte-level vocabulary makes a tool catalogue thousands of
  // tokens long; larger models default to 4,096 (override with contextSize) to keep memory predictable.
  const isTiny = parameters !== undefined && parameters < TINY_MODEL_PARAMETERS;
  const contextSize = Math.min(options.contextSize ?? (isTiny ? 32_768 : 4096), trained);
  const perContext = Math.max(1, options.sequences ?? 2);
  const contexts: LlamaContext[] = [];
  const free: LlamaContextSequence[] = [];
  const waiters: ((s: LlamaContextSequence) => void)[] = [];
  let growing: Promise<void> | undefined;
  const grow = async () => {
    const context = await model.createContext({ contextSize, sequences: perContext, threads });
    contexts.push(context);
    for (let i = 0; i < perContext; i++) free.push(context.getSequence());
  };
  const acquire = async (signal?: AbortSignal): Promise<LlamaContextSequence> => {
    for (;;) {
      signal?.throwIfAborted();
      const s = free.pop();
      if (s) return s;
      if (contexts.length < 4) {
        growing ??= grow().finally(() => {
          growing = undefined;
        });
        await growing;
        continue;
      }
      return new Promise<LlamaContextSequence>((resolve, reject) => {
        const onAbort = () => reject(signal?.reason);
        signal?.addEventListener("abort", onAbort, { once: true });
        waiters.push((seq) => {
          signal?.removeEventListener("abort", onAbort);
          if (signal?.aborted) release(seq);
          else resolve(seq);
        });
      });
    }
  };
  const held = new Map<LlamaContextSequence, { released: boolean }>();
  const release = (sequence: LlamaContextSequence) => {
    const hold = held.get(sequence);
    if (hold) {
      hold.released = true;
      return;
    }
    const waiter = waiters.shift();
    if (waiter) waiter(sequence);
    else free.push(sequence);
  };
  const holdUntil = (sequence: LlamaContextSequence, generation: Promise<unknown>) => {
    const hold = { released: false };
    held.set(sequence, hold);
    const settled = () => {
      held.delete(sequence);
      if (hold.released) release(sequence);
    };
    generation.then(settled, settled);
  };
  // Biases made from tokenBias on first use, by what they are for: each reads the whole vocabulary.
  const biases = new Map<string, Promise<TokenBias | undefined>>();
  const biasOnce = (key: string, make: () => Promise<TokenBias | undefined>) => {
    let bias = biases.get(key);
    if (!bias) biases.set(key, (bias = make()));
    return bias;
  };
  const wordEndBias = (closer: string) => {
    if (!tokenBias) return Promise.resolve(undefined);
    const ends = (text: string) =>
      text === "" || /^[\s.,;:!?]/u.test(text) || (closer !== "" && text.startsWith(closer));
    return biasOnce(`word end ${closer}`, () => banHighBytes(model, (text) => !ends(text)));
  };
  const biasWriting = (text: string) => {
    const bytes = new Set(Buffer.from(text.replace(/[\x00-\x7F]/g, ""), "utf8"));
    if (!tokenBias || bytes.size === 0) return Promise.resolve(tokenBias);
    const key = [...bytes].sort((a, b) => a - b).join(",");
    return biasOnce(`writing ${key}`, () => banHighBytes(model, undefined, bytes));
  };
  return {
    llama,
    model,
    parameters,
    threads,
    contextSize,
    tokenBias,
    wordEndBias,
    biasWriting,
    acquire,
    release,
    holdUntil,
  };
}

/** The byte tokens 0x80–0xFF banned but those of `keep`, and any other token whose text `alsoBan` picks. */
async function banHighBytes(
  model: LlamaModel,
  alsoBan?: (text: string) => boolean,
  keep?: ReadonlySet<number>,
): Promise<TokenBias | undefined> {
  const ggml = (model.fileInfo.metadata.tokenizer as { ggml?: { tokens?: readonly string[] } } | undefined)
    ?.ggml;
  const tokens = ggml?.tokens;
  if (!tokens) return undefined;
  const { TokenBias } = await import("node-llama-cpp");
  const bias = new TokenBias(model.tokenizer);
  tokens.forEach((text, id) => {
    const byte = /^<0x([89A-F][0-9A-F])>$/i.exec(text)?.[1];
    if (byte !== undefined) {
      if (!keep?.has(Number.parseInt(byte, 16))) bias.set(id as never, "never");
    } else if (alsoBan?.(model.detokenize([id as never], true))) bias.set(id as never, "never");
  });
  return bias;
}
