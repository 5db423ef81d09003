import path from "node:path";
import type { ChatHistoryItem, ChatWrapper } from "node-llama-cpp";
import type { LanguageModel, ModelEvent, ModelRequest } from "../../core/language-model.js";
import type { ToolCallProtocol } from "../../protocols/protocol.js";
import {
  applyCatalogueHint,
  BUNDLED_MODEL_TOOLS,
  lastRequests,
  type ModelHints,
  readModelHints,
} from "../bundled-model.js";
import type { ChatTemplate } from "../chat-template/chat-template.js";
import { builtinChatTemplate, loadChatTemplate } from "../chat-template/load-chat-template.js";
import { chooseProtocol } from "../choose-protocol.js";
import { enforceToolChoice } from "../enforce-tool-choice.js";
import { answerGrammar } from "./answer-grammar.js";
import { CallFrameCache } from "./call-body-grammar-cache.js";
import { TINY_MODEL_PARAMETERS } from "./choose-threads.js";
import { isForced, offeredTools, type Sampling } from "./llama-generation.js";
import { streamNativeTurn } from "./llama-native-turn.js";
import { type LoadedLlama, loadLlama } from "./llama-runtime.js";
import { streamTextTurn } from "./llama-text-turn.js";

export interface LlamaModelOptions {
  /** Path of a GGUF model file. */
  modelPath: string;
  /**
   * `native` (default): node-llama-cpp's function calling — the chat wrapper resolved from the GGUF's chat template
   * writes the tools and reads calls, parameters are grammar-enforced, handlers run mid-generation. `text`: a text
   * tool-call protocol renders the catalogue and parses the output; the call body is grammar-constrained.
   */
  mode?: "native" | "text";
  /** Text mode: the tool-call format. Default: detected from the GGUF's chat template, then its name (`detectProtocol`). */
  protocol?: string | ToolCallProtocol;
  /** Default: the cores available, 1 for tiny models (< 50M parameters); never more than the cores available. */
  threads?: number;
  /** Tokens of context per sequence. Default 4096 (capped at the model's training context). */
  contextSize?: number;
  /** Concurrent generations per context (more contexts are made as needed). Default 2. */
  sequences?: number;
  /** Sampling seed (only matters with temperature > 0). */
  seed?: number;
  /** Default 0.7; 0 = greedy. */
  temperature?: number;
  /** Tokens generated per turn at most. Default 1024. */
  maxTokens?: number;
  /** `"auto"` (default) uses a GPU if a prebuilt binary for it is installed; `false` forces CPU. Nothing is downloaded. */
  gpu?: "auto" | false;
  /**
   * Bound put by the call grammar on argument strings (a smaller maxLength of the schema wins). Default `"auto"`: 64
   * for tiny models (random or barely trained ones never close a string by themselves), none otherwise.
   */
  maxStringLength?: number | "auto" | false;
  /**
   * Text mode: hold plain string arguments (no enum, format or pattern) to the words of the conversation — the user's
   * and system messages, tool results and the tools' own schemas; short numbers, spaces and punctuation stay free
   * (copy-grammar.ts). A model that starts copying "purple" cannot write "pflip". Default `"auto"`: on for tiny models
   * (< 50M parameters), which cannot copy a word they never saw; off otherwise, where a tool may want text the model
   * writes itself (an email's body).
   */
  copyArguments?: boolean | "auto";
  /**
   * Text mode: in an answer after a tool result, a word of the result the model begins (past its first characters,
   * once no other word of the result starts the same) is written out whole from the result — "plinth3390", never
   * "plied3390" (copied-words.ts). Only the result's words the model's own prompt does not use are held. Default
   * `"auto"`: on for tiny models (< 50M parameters), as `copyArguments`.
   */
  copyWords?: boolean | "auto";
  /**
   * Text mode: when the model starts a call among tools it was not trained on, hold the call to the tool the latest
   * request's words point at, if one clearly leads (tool-by-words.ts: the preselection index over the offered tools'
   * names, descriptions and parameters); the model still decides whether to call at all. Default `"auto"`: on for tiny
   * models made by toolbridge (a `compact` catalogue hint: the bundled demo model), whose training catalogue is the
   * built-in tools, when none of those is offered — a `/v1` client's own tools. There, with `copyArguments` on, a string
   * argument is also a whole span of what the person wrote, ended where a phrase may end ("best hiking boots", not
   * "best": span-grammar.ts). `true` treats every catalogue as unknown to the model.
   */
  toolByWords?: boolean | "auto";
  /**
   * Text mode: constrain each call's body with a grammar made from the offered tools' schemas (default true). `false`
   * lets the model write calls freely and only parses them, as a text-only server's output is read (`toolbridge eval`
   * measures what the grammar adds). Native mode is always grammar-constrained by node-llama-cpp.
   */
  grammar?: boolean;
  /** Load progress, 0…1 (the CLI shows it). */
  onLoadProgress?: (progress: number) => void;
  id?: string;
}

/** The catalogue a model made by toolbridge's training pipeline learnt (scripts/train): the built-in tools. */
const TRAINED_TOOLS: ReadonlySet<string> = new Set(BUNDLED_MODEL_TOOLS);

/**
 * A GGUF model run in-process with node-llama-cpp. One loaded model is shared by every run (and every instance made
 * for the same file); each generation borrows its own context sequence.
 *
 * toolChoice, per mode:
 * - native: `none` offers no functions; `{name}` offers only that function; `required` and `{name}` put the model into
 *   node-llama-cpp's function-calling mode from the first token of the turn (the chat wrapper's call prefix is
 *   injected and the function-name grammar picks among the offered functions), so the turn always starts with a
 *   call; after its result the model continues freely.
 * - text: `none` renders no catalogue and applies no grammar; `auto` generates freely until the protocol's call-start
 *   marker appears and then constrains the body with the grammar of the offered tools' schemas; `required` writes the
 *   marker as the start of the answer and generates the body under that grammar at once; `{name}` writes the call's
 *   opening up to the arguments and constrains the arguments to that tool's schema. Protocols whose calls are not a
 *   JSON object after a marker (pythonic, XML parameters) get no grammar; there `required`/`{name}` re-ask once.
 */
export class LlamaLanguageModel implements LanguageModel {
  readonly id: string;
  readonly mode: "native" | "text";
  readonly #options: LlamaModelOptions;
  #loading: Promise<LoadedLlama> | undefined;
  #ready = false;
  #wrapper: ChatWrapper | undefined;
  /** Text mode: the template, the protocol and its call frames, set by `load`. */
  #text: { template: ChatTemplate; protocol: ToolCallProtocol; frames: CallFrameCache } | undefined;
  #lastHistory: ChatHistoryItem[] | undefined;
  /**
   * What the GGUF's metadata says about how it was trained (text mode): its temperature, the requests of a
   * conversation it is shown (`toolbridge.history`; undefined: all), its catalogue.
   */
  #hints: ModelHints | undefined;

  constructor(options: LlamaModelOptions) {
    this.#options = options;
    this.mode = options.mode ?? "native";
    this.id = options.id ?? `llama:${path.basename(options.modelPath)}`;
  }

  get supportsNativeTools(): boolean {
    return this.mode === "native";
  }

  /** Text mode: the tool-call format in use (after `load`). */
  get protocol(): ToolCallProtocol | undefined {
    return this.#text?.protocol;
  }

  /**
   * Native mode: the node-llama-cpp chat history of the last turn, as generation left it — the function calls made
   * (with their results) included. For inspection and tests.
   */
  get lastChatHistory(): readonly ChatHistoryItem[] | undefined {
    return this.#lastHistory;
  }

  /** True once `load` finished: a run has nothing to wait for (LoadableModel). */
  get loaded(): boolean {
    return this.#ready;
  }

  /**
   * Load the model (once per process and file); `stream` does it on first use. `onProgress` (0…1) joins a load under
   * way as well, besides the `onLoadProgress` given at construction.
   */
  load(options: { onProgress?: (progress: number) => void } = {}): Promise<LoadedLlama> {
    const o = this.#options;
    const runtime = {
      modelPath: o.modelPath,
      ...(o.gpu !== undefined ? { gpu: o.gpu } : {}),
      ...(o.threads !== undefined ? { threads: o.threads } : {}),
      ...(o.contextSize !== undefined ? { contextSize: o.contextSize } : {}),
      ...(o.sequences !== undefined ? { sequences: o.sequences } : {}),
    };
    this.#loading ??= (async () => {
      const loaded = await loadLlama({
        ...runtime,
        ...(o.onLoadProgress ? { onLoadProgress: o.onLoadProgress } : {}),
      });
      const { resolveChatWrapper } = await import("node-llama-cpp");
      this.#wrapper = resolveChatWrapper(loaded.model);
      if (this.mode === "text") {
        const chatTemplate = loaded.model.fileInfo.metadata.tokenizer?.chat_template;
        const template =
          typeof chatTemplate === "string"
            ? await loadChatTemplate({ gguf: o.modelPath })
            : builtinChatTemplate("chatml");
        // A model made for toolbridge (the bundled demo) names its protocol and catalogue style in its metadata.
        const hints = readModelHints(loaded.model.fileInfo.metadata);
        this.#hints = hints;
        const name = loaded.model.fileInfo.metadata.general?.name ?? path.basename(o.modelPath);
        const protocol = applyCatalogueHint(
          chooseProtocol({
            protocol: o.protocol ?? hints.protocol,
            chatTemplate: typeof chatTemplate === "string" ? chatTemplate : undefined,
            modelName: `${name} ${path.basename(o.modelPath)}`,
          }),
          hints,
        );
        this.#text = { template, protocol, frames: new CallFrameCache(protocol) };
      }
      return loaded;
    })();
    const loading = this.#loading;
    loading.then(
      () => {
        if (this.#loading === loading) this.#ready = true;
      },
      () => {
        if (this.#loading === loading) this.#loading = undefined;
      },
    );
    // The same file's load under way (loadLlama shares one per file and settings) reports to this listener too.
    if (options.onProgress && !this.#ready)
      void loadLlama({ ...runtime, onLoadProgress: options.onProgress }).catch(() => {});
    return loading;
  }

  #maxStringLength(loaded: LoadedLlama): number | undefined {
    const o = this.#options.maxStringLength ?? "auto";
    if (o === false) return undefined;
    if (o === "auto")
      return loaded.parameters !== undefined && loaded.parameters < TINY_MODEL_PARAMETERS ? 64 : undefined;
    return o;
  }

  /** The tools the model is known to be trained on, when calls among others are held to the request's words. */
  #knownTools(loaded: LoadedLlama): ReadonlySet<string> | undefined {
    const o = this.#options.toolByWords ?? "auto";
    if (o === false) return undefined;
    if (o === true) return new Set();
    const tiny = loaded.parameters !== undefined && loaded.parameters < TINY_MODEL_PARAMETERS;
    return tiny && this.#hints?.catalogue === "compact" ? TRAINED_TOOLS : undefined;
  }

  #copyArguments(loaded: LoadedLlama): boolean {
    const o = this.#options.copyArguments ?? "auto";
    if (o !== "auto") return o;
    return loaded.parameters !== undefined && loaded.parameters < TINY_MODEL_PARAMETERS;
  }

  #copyWords(loaded: LoadedLlama): boolean {
    const o = this.#options.copyWords ?? "auto";
    if (o !== "auto") return o;
    return loaded.parameters !== undefined && loaded.parameters < TINY_MODEL_PARAMETERS;
  }

  /** The configured sampling with the request's own settings over it, for this request only. */
  #sampling(request: ModelRequest): Sampling {
    const o = this.#options;
    const r = request.sampling ?? {};
    // llama.cpp's seed is 32-bit unsigned; OpenAI's is any integer (negative ones included).
    const wanted = r.seed ?? o.seed;
    const seed = wanted === undefined ? undefined : wanted >>> 0;
    return {
      temperature: r.temperature ?? o.temperature ?? this.#hints?.temperature ?? 0.7,
      ...(seed !== undefined ? { seed } : {}),
      ...(r.topP !== undefined ? { topP: r.topP } : {}),
      ...(r.presencePenalty !== undefined ? { presencePenalty: r.presencePenalty } : {}),
      ...(r.frequencyPenalty !== undefined ? { frequencyPenalty: r.frequencyPenalty } : {}),
      maxTokens: Math.min(o.maxTokens ?? 1024, request.maxTokens ?? Number.POSITIVE_INFINITY),
    };
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const loaded = await this.load();
    const maxStringLength = this.#maxStringLength(loaded);
    // A JSON answer format becomes a grammar on turns that offer no tool. With tools offered, the answer may be a call
    // instead, and neither node-llama-cpp's function calling nor text mode's call grammar combines with a second one.
    const grammar =
      offeredTools(request.tools, request.toolChoice).length === 0
        ? await answerGrammar(loaded.llama, request.responseFormat, maxStringLength)
        : undefined;
    const sequence = await loaded.acquire(request.signal);
    const common = {
      loaded,
      sequence,
      sampling: { ...this.#sampling(request), ...(grammar ? { answerGrammar: grammar } : {}) },
      maxStringLength,
    };
    try {
      if (!this.#text) {
        yield* streamNativeTurn({
          ...common,
          request,
          wrapper: this.#wrapper as ChatWrapper,
          onHistory: (history) => {
            this.#lastHistory = history;
          },
        });
        return;
      }
      const text = this.#text;
      // Trimmed before enforceToolChoice adds its nudge turn, which must not count as the latest request.
      const kept = this.#hints?.history;
      const shown =
        kept !== undefined ? { ...request, messages: lastRequests(request.messages, kept) } : request;
      const copyArguments = this.#copyArguments(loaded);
      const copyWords = this.#copyWords(loaded);
      const knownTools = this.#knownTools(loaded);
      const callGrammar = this.#options.grammar !== false;
      const turn = (req: ModelRequest) =>
        streamTextTurn({
          ...common,
          ...text,
          callGrammar,
          copyArguments,
          copyWords,
          knownTools,
          request: req,
        });
      // Formats without a grammar-able call body (or with the grammar off) cannot force a call by prefix: ask again.
      if (isForced(shown.toolChoice) && (!callGrammar || !text.frames.framesFor(shown.tools))) {
        yield* enforceToolChoice(shown.toolChoice, 1, (extra) =>
          turn({ ...shown, messages: [...shown.messages, ...extra] }),
        );
      } else yield* turn(shown);
    } finally {
      loaded.release(sequence);
    }
  }
}

/** Make a model for a GGUF file; it loads on first use (or call `load()` to load now and see progress). */
export function createLlamaModel(options: LlamaModelOptions): LlamaLanguageModel {
  return new LlamaLanguageModel(options);
}
