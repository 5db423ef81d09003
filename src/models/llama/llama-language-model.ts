import path from "node:path";
import type { Tool } from "@modelcontextprotocol/server";
import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  ChatWrapper,
  ChatWrapperGeneratedContextState,
  LlamaChatResponseFunctionCall,
  LlamaContextSequence,
  LlamaGrammar,
  Token,
} from "node-llama-cpp";
import type {
  LanguageModel,
  ModelEvent,
  ModelFinishReason,
  ModelRequest,
  ToolChoice,
} from "../../agent/model.js";
import { detectProtocol } from "../../protocols/detect-protocol.js";
import type { ToolCallProtocol } from "../../protocols/protocol.js";
import { getProtocol } from "../../protocols/protocol-registry.js";
import { applyCatalogueHint, lastRequestOnly, readModelHints } from "../bundled-model.js";
import type { ChatTemplate } from "../chat-template/chat-template.js";
import { builtinChatTemplate, loadChatTemplate } from "../chat-template/load-chat-template.js";
import { renderCompletionPrompt } from "../completions/render-completion-prompt.js";
import { enforceToolChoice } from "../enforce-tool-choice.js";
import { ModelRequestError } from "../model-errors.js";
import { generateCallId } from "../openai/tool-call-delta-accumulator.js";
import { ProtocolEventMapper } from "../protocol-event-mapper.js";
import { type CallFrame, callFrames, createCallBodyGrammar } from "./call-body-grammar.js";
import { TINY_MODEL_PARAMETERS } from "./choose-threads.js";
import { EventQueue } from "./event-queue.js";
import { guardNativeRejections } from "./guard-native-rejections.js";
import { resultForModel, toLlamaChatHistory } from "./llama-chat-history.js";
import { type LoadedLlama, loadLlama } from "./llama-runtime.js";
import { toGbnfJsonSchema } from "./to-gbnf-json-schema.js";

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
  /** Load progress, 0…1 (the CLI shows it). */
  onLoadProgress?: (progress: number) => void;
  id?: string;
}

/** The call frames for one tool list. */
interface TextTools {
  frames: { marker: string; frames: CallFrame[] } | undefined;
}

const GRAMMARS = new WeakMap<object, Map<string, Promise<LlamaGrammar>>>();

const isForced = (choice: ToolChoice): boolean => choice === "required" || typeof choice === "object";

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
  #wrapper: ChatWrapper | undefined;
  #template: ChatTemplate | undefined;
  #protocol: ToolCallProtocol | undefined;
  #textTools = new Map<string, TextTools>();
  #lastHistory: ChatHistoryItem[] | undefined;
  #hintedTemperature: number | undefined;
  #lastRequestOnly = false;

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
    return this.#protocol;
  }

  /**
   * Native mode: the node-llama-cpp chat history of the last turn, as generation left it — the function calls made
   * (with their results) included. For inspection and tests.
   */
  get lastChatHistory(): readonly ChatHistoryItem[] | undefined {
    return this.#lastHistory;
  }

  /** Load the model (once per process and file); `stream` does it on first use. */
  load(): Promise<LoadedLlama> {
    this.#loading ??= (async () => {
      const o = this.#options;
      const loaded = await loadLlama({
        modelPath: o.modelPath,
        ...(o.gpu !== undefined ? { gpu: o.gpu } : {}),
        ...(o.threads !== undefined ? { threads: o.threads } : {}),
        ...(o.contextSize !== undefined ? { contextSize: o.contextSize } : {}),
        ...(o.sequences !== undefined ? { sequences: o.sequences } : {}),
        ...(o.onLoadProgress ? { onLoadProgress: o.onLoadProgress } : {}),
      });
      const { resolveChatWrapper } = await import("node-llama-cpp");
      this.#wrapper = resolveChatWrapper(loaded.model);
      if (this.mode === "text") {
        const chatTemplate = loaded.model.fileInfo.metadata.tokenizer?.chat_template;
        this.#template =
          typeof chatTemplate === "string"
            ? await loadChatTemplate({ gguf: o.modelPath })
            : builtinChatTemplate("chatml");
        // A model made for toolbridge (the bundled demo) names its protocol and catalogue style in its metadata.
        const hints = readModelHints(loaded.model.fileInfo.metadata);
        this.#hintedTemperature = hints.temperature;
        this.#lastRequestOnly = hints.history === "last-request";
        if (o.protocol !== undefined)
          this.#protocol = typeof o.protocol === "string" ? getProtocol(o.protocol) : o.protocol;
        else if (hints.protocol) this.#protocol = getProtocol(hints.protocol);
        else {
          const name = loaded.model.fileInfo.metadata.general?.name ?? path.basename(o.modelPath);
          const detected = detectProtocol({
            ...(typeof chatTemplate === "string" ? { chatTemplate } : {}),
            modelName: `${name} ${path.basename(o.modelPath)}`,
          });
          this.#protocol = getProtocol(detected.implemented ? detected.id : "hermes");
        }
        this.#protocol = applyCatalogueHint(this.#protocol, hints);
      }
      return loaded;
    })();
    this.#loading.catch(() => {
      this.#loading = undefined;
    });
    return this.#loading;
  }

  #maxStringLength(loaded: LoadedLlama): number | undefined {
    const o = this.#options.maxStringLength ?? "auto";
    if (o === false) return undefined;
    if (o === "auto")
      return loaded.parameters !== undefined && loaded.parameters < TINY_MODEL_PARAMETERS ? 64 : undefined;
    return o;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    const loaded = await this.load();
    const sequence = await loaded.acquire(request.signal);
    try {
      if (this.mode === "native") {
        yield* this.#native(request, loaded, sequence);
        return;
      }
      // Trimmed before enforceToolChoice adds its nudge turn, which must not count as the latest request.
      const shown = this.#lastRequestOnly
        ? { ...request, messages: lastRequestOnly(request.messages) }
        : request;
      if (isForced(shown.toolChoice) && !this.#frames(shown.tools).frames) {
        yield* enforceToolChoice(shown.toolChoice, 1, (extra) =>
          this.#text({ ...shown, messages: [...shown.messages, ...extra] }, loaded, sequence),
        );
      } else yield* this.#text(shown, loaded, sequence);
    } finally {
      loaded.release(sequence);
    }
  }

  /** Runs `generate` and streams what it pushes; node-llama-cpp failures become a ModelRequestError, never a crash. */
  async *#pump(
    request: ModelRequest,
    generate: (queue: EventQueue<ModelEvent>, controller: AbortController) => Promise<void>,
  ): AsyncGenerator<ModelEvent> {
    const queue = new EventQueue<ModelEvent>();
    const controller = new AbortController();
    const onAbort = () => controller.abort(request.signal.reason);
    if (request.signal.aborted) onAbort();
    else request.signal.addEventListener("abort", onAbort, { once: true });
    let failure: Error | undefined;
    const done = guardNativeRejections(
      (error) => {
        failure ??= error;
        controller.abort(error);
      },
      () => generate(queue, controller),
    ).then(
      () => {
        if (failure) queue.fail(llamaError(failure));
        else queue.close();
      },
      (error: unknown) =>
        queue.fail(request.signal.aborted ? request.signal.reason : llamaError(failure ?? error)),
    );
    try {
      yield* queue;
    } finally {
      // Abandoned (cancelled) or finished: stop generating and wait, so the sequence is free when it is released.
      controller.abort(request.signal.reason ?? new Error("stream closed"));
      await done;
      request.signal.removeEventListener("abort", onAbort);
    }
  }

  #native(
    request: ModelRequest,
    loaded: LoadedLlama,
    sequence: LlamaContextSequence,
  ): AsyncGenerator<ModelEvent> {
    return this.#pump(request, async (queue, controller) => {
      const { LlamaChat, LlamaText } = await import("node-llama-cpp");
      const o = this.#options;
      const inner = this.#wrapper!;
      const offered = offeredTools(request.tools, request.toolChoice);
      const maxStringLength = this.#maxStringLength(loaded);
      const functions: ChatModelFunctions | undefined = offered.length
        ? Object.fromEntries(
            offered.map((t) => [
              t.name,
              {
                description: t.description ?? t.title ?? "",
                params: toGbnfJsonSchema(
                  t.inputSchema,
                  maxStringLength === undefined ? {} : { maxStringLength },
                ),
              },
            ]),
          )
        : undefined;
      let force = isForced(request.toolChoice) && functions !== undefined;
      // The resolved wrapper, plus node-llama-cpp's own "enter function calling now" trigger while a call is forced.
      const wrapper: ChatWrapper = Object.create(inner);
      wrapper.generateContextState = (state) => {
        const generated = inner.generateContextState(state);
        if (!force || generated.functionCall !== undefined) return generated;
        const forced: ChatWrapperGeneratedContextState = {
          contextText: generated.contextText,
          stopGenerationTriggers: generated.stopGenerationTriggers,
          noPrefixTrigger: { type: "functionCall", inject: LlamaText(inner.settings.functions.call.prefix) },
        };
        return forced;
      };
      const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: wrapper });
      let history = toLlamaChatHistory(request.messages, request.tools);
      let contextWindow: ChatHistoryItem[] | undefined;
      let remaining = o.maxTokens ?? 1024;
      let reason: ModelFinishReason = "stop";
      let calls = 0;
      try {
        for (;;) {
          type Settled = { call: LlamaChatResponseFunctionCall<ChatModelFunctions>; result?: string };
          const handlers: Promise<Settled>[] = [];
          const settle = async (
            call: LlamaChatResponseFunctionCall<ChatModelFunctions>,
          ): Promise<Settled> => {
            const args = isRecord(call.params) ? call.params : {};
            if (!request.executeCall) {
              // No loop hook: the call goes back as a call event and generation stops here.
              const id = generateCallId();
              queue.push({ type: "call-start", id, name: call.functionName });
              queue.push({ type: "call-end", id, name: call.functionName, arguments: args });
              controller.abort(STOP);
              return { call };
            }
            // The loop must have seen the text before the call: it records text and call in order.
            await queue.drained();
            const outcome = await request.executeCall({ name: call.functionName, arguments: args });
            if (outcome.status === "done") return { call, result: resultForModel(outcome.result) };
            controller.abort(STOP);
            return { call };
          };
          const response = await chat.generateResponse(history, {
            functions,
            onFunctionCall: (call) => {
              calls += 1;
              handlers.push(settle(call));
            },
            onTextChunk: (text) => queue.push({ type: "text-delta", text }),
            onToken: (tokens: Token[]) => {
              remaining -= tokens.length;
            },
            signal: controller.signal,
            stopOnAbortSignal: true,
            maxTokens: Math.max(1, remaining),
            ...(loaded.tokenBias ? { tokenBias: loaded.tokenBias } : {}),
            temperature: o.temperature ?? this.#hintedTemperature ?? 0.7,
            ...(o.seed !== undefined ? { seed: o.seed } : {}),
            ...(contextWindow ? { lastEvaluationContextWindow: { history: contextWindow } } : {}),
          });
          force = false;
          history = response.lastEvaluation.cleanHistory;
          contextWindow = response.lastEvaluation.contextWindow;
          this.#lastHistory = history;
          if (request.signal.aborted) throw request.signal.reason;
          if (handlers.length > 0) {
            const settled = await Promise.all(handlers);
            let first = true;
            for (const { call, result } of settled) {
              if (result === undefined) continue;
              const item: ChatModelFunctionCall = {
                type: "functionCall",
                name: call.functionName,
                description: functions?.[call.functionName]?.description ?? "",
                params: call.params,
                result,
                rawCall: call.raw,
                startsNewChunk: first,
              };
              first = false;
              history = appendToModelResponse(history, item);
              contextWindow = appendToModelResponse(contextWindow ?? history, item);
            }
            this.#lastHistory = history;
            if (settled.some((s) => s.result === undefined)) {
              reason = "tool-calls";
              break;
            }
            if (remaining <= 0) {
              reason = "length";
              break;
            }
            continue;
          }
          const stop = response.metadata.stopReason;
          reason = stop === "maxTokens" ? "length" : stop === "abort" && calls > 0 ? "tool-calls" : "stop";
          break;
        }
      } finally {
        chat.dispose({ disposeSequence: false });
      }
      queue.push({ type: "finish", reason });
    });
  }

  #frames(tools: readonly Tool[]): TextTools {
    const key = JSON.stringify(tools.map((t) => [t.name, t.inputSchema]));
    let entry = this.#textTools.get(key);
    if (!entry) {
      entry = { frames: this.#protocol && tools.length ? callFrames(this.#protocol, tools) : undefined };
      if (this.#textTools.size > 32) this.#textTools.clear();
      this.#textTools.set(key, entry);
    }
    return entry;
  }

  #text(
    request: ModelRequest,
    loaded: LoadedLlama,
    sequence: LlamaContextSequence,
  ): AsyncGenerator<ModelEvent> {
    return this.#pump(request, async (queue, controller) => {
      const { LlamaCompletion } = await import("node-llama-cpp");
      const o = this.#options;
      const protocol = this.#protocol!;
      const template = this.#template!;
      const model = loaded.model;
      const choice = request.toolChoice;
      const { prompt, forcedPrefix } = renderCompletionPrompt({
        messages: request.messages,
        tools: request.tools,
        toolChoice: choice,
        protocol,
        template,
      });
      const withTools = choice !== "none" && request.tools.length > 0;
      const offered = offeredTools(request.tools, choice);
      const tools = withTools ? this.#frames(offered) : undefined;
      const frames = tools?.frames;
      const maxStringLength = this.#maxStringLength(loaded);
      const grammarFor = (named?: string): Promise<LlamaGrammar> => {
        // Shared by every model instance on this Llama: grammars depend only on the frames, schemas and bounds.
        const key = JSON.stringify([
          protocol.id,
          named ?? null,
          maxStringLength ?? null,
          offered.map((t) => [t.name, t.inputSchema]),
        ]);
        let cache = GRAMMARS.get(loaded.llama);
        if (!cache) GRAMMARS.set(loaded.llama, (cache = new Map()));
        let g = cache.get(key);
        if (!g) {
          g = createCallBodyGrammar(loaded.llama, frames!.frames, offered, {
            ...(maxStringLength !== undefined ? { maxStringLength } : {}),
            ...(named !== undefined ? { named } : {}),
          });
          g.catch(() => cache.delete(key));
          if (cache.size > 64) cache.clear();
          cache.set(key, g);
        }
        return g;
      };
      const parser = protocol.createParser({
        tools: request.tools,
        prefix: prompt.slice(-64),
        createId: generateCallId,
      });
      const mapper = new ProtocolEventMapper();
      const emit = (text: string) => {
        for (const event of mapper.map(parser.push(text))) {
          if (choice === "none" && event.type !== "text-delta" && event.type !== "reasoning-delta") continue;
          queue.push(event);
        }
      };
      const bos = model.tokens.bos !== null && model.tokens.shouldPrependBosToken ? [model.tokens.bos] : [];
      const promptTokens = [...bos, ...model.tokenize(prompt, true)];
      let generated = forcedPrefix;
      if (forcedPrefix) emit(forcedPrefix);
      // A forced call starts inside the body (the prompt ends with the marker, or with the call's opening).
      let phase: "free" | "body" = frames && isForced(choice) && forcedPrefix ? "body" : "free";
      const named = typeof choice === "object" && frames ? choice.name : undefined;
      let bodyNamed = named;
      const stops = [...new Set([...protocol.stopSequences, ...template.turnEndMarkers])];
      let remaining = o.maxTokens ?? 1024;
      let reason: ModelFinishReason = "stop";
      const completion = new LlamaCompletion({ contextSequence: sequence });
      try {
        while (remaining > 0) {
          const input = [...promptTokens, ...model.tokenize(generated, true)];
          const common = {
            signal: controller.signal,
            stopOnAbortSignal: true,
            maxTokens: remaining,
            ...(loaded.tokenBias ? { tokenBias: loaded.tokenBias } : {}),
            temperature: o.temperature ?? this.#hintedTemperature ?? 0.7,
            ...(o.seed !== undefined ? { seed: o.seed } : {}),
            onToken: (tokens: Token[]) => {
              remaining -= tokens.length;
            },
            onTextChunk: (text: string) => {
              generated += text;
              emit(text);
            },
          };
          if (phase === "body") {
            const grammar = await grammarFor(bodyNamed);
            const result = await completion.generateCompletionWithMeta(input, { ...common, grammar });
            bodyNamed = undefined;
            if (controller.signal.aborted) break;
            if (result.metadata.stopReason === "maxTokens") {
              reason = "length";
              break;
            }
            phase = "free";
            continue;
          }
          const triggers = frames ? [frames.marker, ...stops] : stops;
          const result = await completion.generateCompletionWithMeta(input, {
            ...common,
            customStopTriggers: triggers,
          });
          if (controller.signal.aborted) break;
          const meta = result.metadata;
          if (meta.stopReason === "maxTokens") reason = "length";
          if (meta.stopReason === "customStopTrigger" && frames) {
            const trigger = meta.customStopTrigger
              .map((t) => (typeof t === "string" ? t : model.detokenize([t], true)))
              .join("");
            if (trigger === frames.marker) {
              generated += trigger;
              emit(trigger);
              phase = "body";
              continue;
            }
          }
          break;
        }
        if (request.signal.aborted) throw request.signal.reason;
        for (const event of mapper.map(parser.end())) {
          if (choice === "none" && event.type !== "text-delta" && event.type !== "reasoning-delta") continue;
          queue.push(event);
        }
      } finally {
        completion.dispose({ disposeSequence: false });
      }
      if (mapper.calls > 0 && choice !== "none") reason = "tool-calls";
      queue.push({ type: "finish", reason });
    });
  }
}

/** The abort reason used when a call (not the user) stops generation. */
const STOP = new Error("tool call handed to the loop");

function offeredTools(tools: readonly Tool[], choice: ToolChoice): readonly Tool[] {
  if (choice === "none") return [];
  if (typeof choice === "object") {
    const named = tools.filter((t) => t.name === choice.name);
    return named.length ? named : tools;
  }
  return tools;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function appendToModelResponse(history: ChatHistoryItem[], item: ChatModelFunctionCall): ChatHistoryItem[] {
  const out = history.slice();
  const last = out.at(-1);
  if (last?.type === "model") out[out.length - 1] = { ...last, response: [...last.response, item] };
  else out.push({ type: "model", response: [item] });
  return out;
}

function llamaError(error: unknown): Error {
  if (error instanceof ModelRequestError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ModelRequestError(
    `node-llama-cpp failed while generating: ${message}. The run was stopped; the process is fine. If it repeats, try mode "text" or another tool-call protocol.`,
  );
}

/** Make a model for a GGUF file; it loads on first use (or call `load()` to load now and see progress). */
export function createLlamaModel(options: LlamaModelOptions): LlamaLanguageModel {
  return new LlamaLanguageModel(options);
}
