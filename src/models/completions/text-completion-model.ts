import type OpenAI from "openai";
import type { Completion, CompletionCreateParamsStreaming } from "openai/resources/completions";
import type { AgentMessage } from "../../core/agent-message.js";
import type { LanguageModel, ModelEvent, ModelRequest, ModelUsage } from "../../core/language-model.js";
import type { ToolCallProtocol } from "../../protocols/protocol.js";
import { getProtocol } from "../../protocols/protocol-registry.js";
import { resolveBuiltinChatTemplateName } from "../chat-template/builtin-chat-templates.js";
import { ChatTemplate } from "../chat-template/chat-template.js";
import {
  builtinChatTemplate,
  type ChatTemplateSource,
  loadChatTemplate,
} from "../chat-template/load-chat-template.js";
import { chooseProtocol } from "../choose-protocol.js";
import { enforceToolChoice } from "../enforce-tool-choice.js";
import type { HttpModelOptions } from "../http-model-options.js";
import {
  MarkupStrippedError,
  ModelConfigError,
  ModelRequestError,
  UnsupportedSettingError,
} from "../model-errors.js";
import { createOpenAIClient } from "../openai/create-openai-client.js";
import { describeOpenAIError } from "../openai/describe-openai-error.js";
import { openAISamplingFields } from "../openai-sampling-fields.js";
import { SingleCallGate } from "../single-call-gate.js";
import { requestStops, StopAtVisibleText } from "../stop-at-visible-text.js";
import { offersCalls, TextCallReader } from "../text-call-reader.js";
import { renderCompletionPrompt } from "./render-completion-prompt.js";
import { StopSequenceFilter } from "./stop-sequence-filter.js";

/** Protocols whose markers no known server rewrites (mlx_lm only diverts the tokenizer's own tool-call tokens). */
export const MARKUP_SAFE_PROTOCOLS = ["tag_tool", "jsonl_events", "json_tool_calls"] as const;

export interface TextCompletionModelOptions extends HttpModelOptions {
  /** Server root, e.g. `http://localhost:8080/v1` (mlx_lm.server, llama.cpp's llama-server). */
  baseURL: string;
  /** Sent as `model` (mlx_lm.server loads it; llama-server ignores it). Also used to pick a template and protocol. */
  model?: string;
  apiKey?: string;
  /** The model's chat template (loaded), or where to load it from. Default: a built-in one matching `model`. */
  chatTemplate?: ChatTemplate | ChatTemplateSource;
  /** Tool-call format id or protocol. Default: detected from the template, then the model name (`detectProtocol`). */
  protocol?: string | ToolCallProtocol;
  /**
   * The server kind, when known. `mlx` starts with a markup-safe protocol (`fallbackProtocol`) unless `protocol` is
   * set, because mlx_lm.server strips the model's own tool-call markup from completions.
   */
  server?: "mlx" | "llama.cpp" | "generic";
  /** What to do when the server stripped the call markup (finish_reason "tool_calls", no call in the text). Default "switch". */
  onMarkupStripped?: "switch" | "error";
  /** The protocol switched to on stripped markup (and used from the start with `server: "mlx"`). Default `tag_tool`. */
  fallbackProtocol?: (typeof MARKUP_SAFE_PROTOCOLS)[number];
  /** Always sent: servers default to 16 tokens (spec, mlx --max-tokens) or unbounded (llama.cpp). Default 1024. */
  maxTokens?: number;
  /** Sampling defaults; a request's own values (an OpenAI client's temperature…) override them for that request. */
  temperature?: number;
  topP?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Extra stop sequences (the protocol's and the template's end-of-turn markers are always used). */
  stop?: readonly string[];
  /** Extra chat-template variables, e.g. `{ enable_thinking: false }`. */
  templateVariables?: Record<string, unknown>;
  /** `false`: the catalogue asks for one call per turn. */
  parallelToolCalls?: boolean;
  /** Open a forced call (`required`/`{name}`) in the prompt itself. Default true. */
  forceCallPrefix?: boolean;
  /** Re-asks when `required`/`{name}` was answered without the call. Default 1. */
  maxForcedRetries?: number;
  /** Told about automatic recoveries (a protocol switch). Default: `process.emitWarning`. */
  onWarning?: (message: string) => void;
  extraBody?: Record<string, unknown>;
  client?: OpenAI;
}

function _resolveProtocol(p: string | ToolCallProtocol): ToolCallProtocol {
  return typeof p === "string" ? getProtocol(p) : p;
}

/**
 * A text-only model behind `/v1/completions`: the prompt is rendered here (chat template + a text tool-call protocol)
 * and the streamed text is parsed here with the protocol's incremental parser, so the loop receives call events
 * exactly as from a native backend.
 */
export class TextCompletionModel implements LanguageModel {
  readonly id: string;
  readonly supportsNativeTools = false;
  readonly template: ChatTemplate;
  readonly #options: TextCompletionModelOptions;
  /** Created at the first request (the SDK loads then). */
  #client: Promise<OpenAI> | undefined;
  #protocol: ToolCallProtocol;

  constructor(options: TextCompletionModelOptions & { chatTemplate: ChatTemplate }) {
    this.#options = options;
    this.template = options.chatTemplate;
    this.id = options.id ?? `completions:${options.model ?? options.baseURL}`;
    const fallback = options.fallbackProtocol ?? "tag_tool";
    this.#protocol = chooseProtocol({
      // mlx_lm.server strips tool markup from what it streams: start with a format it leaves alone.
      protocol: options.protocol ?? (options.server === "mlx" ? fallback : undefined),
      chatTemplate: this.template.source,
      modelName: options.model,
    });
  }

  /** The tool-call format in use (it changes once if the server is found stripping markup). */
  get protocol(): ToolCallProtocol {
    return this.#protocol;
  }

  stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    return enforceToolChoice(request.toolChoice, this.#options.maxForcedRetries ?? 1, (extra) =>
      this.#attempt(request, extra),
    );
  }

  #warn(message: string): void {
    if (this.#options.onWarning) this.#options.onWarning(message);
    else process.emitWarning(message, "ToolbridgeWarning");
  }

  async *#attempt(request: ModelRequest, extra: readonly AgentMessage[]): AsyncIterable<ModelEvent> {
    const format = request.responseFormat?.type;
    if (format === "json_object" || format === "json_schema")
      throw new UnsupportedSettingError(
        `The completions backend at ${this.#options.baseURL} cannot hold its output to JSON (response_format ${format}): /v1/completions has no such parameter. llama-server takes a schema natively: set extraBody { "json_schema": {…} } on this model, or use an "openai" backend.`,
        "responseFormat",
      );
    for (;;) {
      const protocol = this.#protocol;
      const outcome = yield* this.#generate(request, extra, protocol);
      if (outcome === "done") return;
      const fallback = getProtocol(this.#options.fallbackProtocol ?? "tag_tool");
      const how = `The server removed the model's tool-call markup from the completion (finish_reason "tool_calls" with no ${protocol.callStartMarkers[0] ?? "call"} in the text). mlx_lm.server does this on /v1/completions for models whose tokenizer declares tool-call tokens.`;
      if (
        this.#options.onMarkupStripped === "error" ||
        protocol.id === fallback.id ||
        outcome === "markup-stripped-late"
      ) {
        throw new MarkupStrippedError(
          `${how} Use a protocol whose markers pass through untouched: set protocol "${fallback.id}" (or "jsonl_events", "json_tool_calls"; CLI: --protocol ${fallback.id}), or server: "mlx".`,
        );
      }
      this.#warn(`${how} Switching this model to the "${fallback.id}" protocol and asking again.`);
      this.#protocol = fallback;
    }
  }

  async *#generate(
    request: ModelRequest,
    extra: readonly AgentMessage[],
    protocol: ToolCallProtocol,
  ): AsyncGenerator<ModelEvent, "done" | "markup-stripped" | "markup-stripped-late"> {
    const o = this.#options;
    const parallel = request.parallelToolCalls ?? o.parallelToolCalls;
    const { prompt, forcedPrefix } = renderCompletionPrompt({
      messages: [...request.messages, ...extra],
      tools: request.tools,
      toolChoice: request.toolChoice,
      protocol,
      template: this.template,
      ...(parallel === false ? { parallel: false } : {}),
      ...(o.templateVariables ? { variables: o.templateVariables } : {}),
      ...(o.forceCallPrefix === false ? { forceCallPrefix: false } : {}),
    });
    const userStops = requestStops(request);
    // The request's stop strings go to the server only when no call can come back: a server matches them on the raw
    // text, where they could cut a call's markup or arguments. Otherwise they apply to the visible text, after the
    // protocol parser (StopAtVisibleText).
    const callable = offersCalls(request);
    const stops = [
      ...new Set(
        callable
          ? [...protocol.stopSequences, ...this.template.turnEndMarkers, ...(o.stop ?? [])]
          : [...this.template.turnEndMarkers, ...userStops, ...(o.stop ?? []), ...protocol.stopSequences],
      ),
    ];
    const visible = callable && userStops.length ? new StopAtVisibleText(userStops) : undefined;
    // One call at most: the stream is left once it is complete (the server stops generating a second one).
    const gate = new SingleCallGate(parallel === false && callable);
    const show = (events: ModelEvent[]) => {
      const passed = gate.read(events);
      return visible ? passed.flatMap((e) => visible.read(e)) : passed;
    };
    const body: CompletionCreateParamsStreaming = {
      model: o.model ?? "default",
      prompt,
      max_tokens: Math.min(o.maxTokens ?? 1024, request.maxTokens ?? Number.POSITIVE_INFINITY),
      stream: true,
      // mlx_lm reads include_usage directly once stream_options is present.
      stream_options: { include_usage: true },
    };
    // The spec allows four; the rest are enforced client-side by the filter below.
    if (stops.length) body.stop = stops.slice(0, 4);
    Object.assign(body, openAISamplingFields(request.sampling, o));
    const baseURL = o.baseURL;
    let stream: AsyncIterable<Completion>;
    try {
      this.#client ??= createOpenAIClient(o, o.baseURL);
      stream = await (await this.#client).completions.create(
        { ...body, ...o.extraBody } as CompletionCreateParamsStreaming,
        { signal: request.signal },
      );
    } catch (error) {
      throw await describeOpenAIError(error, baseURL, body.model);
    }

    const reader = new TextCallReader({
      protocol,
      tools: request.tools,
      toolChoice: request.toolChoice,
      prompt,
    });

    const filter = new StopSequenceFilter(stops);
    let finish: string | null | undefined;
    let usage: ModelUsage | undefined;
    let chunks = 0;
    if (forcedPrefix) yield* show(reader.push(forcedPrefix));
    try {
      for await (const chunk of stream) {
        chunks += 1;
        if (chunk.usage)
          usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        if (typeof choice.text === "string" && choice.text !== "")
          yield* show(reader.push(filter.push(choice.text)));
        if (choice.finish_reason) finish = choice.finish_reason;
        // Leaving the loop closes the stream, and the server stops generating (the usage chunk is not waited for).
        if (filter.stopped || visible?.stopped) {
          finish = "stop";
          break;
        }
        if (gate.closed) break;
      }
    } catch (error) {
      throw await describeOpenAIError(error, baseURL, body.model);
    }
    if (chunks === 0)
      throw new ModelRequestError(
        `The completion server at ${baseURL} ended the stream without sending anything.`,
      );
    yield* show(reader.push(filter.end()));
    yield* show(reader.end());
    if ((finish as string | undefined) === "tool_calls" && reader.calls === 0) {
      return reader.shown.trim() === "" ? "markup-stripped" : "markup-stripped-late";
    }
    const reason = reader.finishReason(
      finish === "length" ? "length" : finish === "stop" || !finish ? "stop" : "other",
    );
    // A request's stop string this side caught (the server let it through) is named; one the server matched itself
    // is not reported by OpenAI-style servers, so that answer simply ends with reason stop.
    const caught = reason === "stop" && filter.matched !== undefined && userStops.includes(filter.matched);
    yield* show([
      {
        type: "finish",
        reason,
        ...(usage ? { usage } : {}),
        ...(caught ? { stopSequence: filter.matched } : {}),
      },
    ]);
    return "done";
  }
}

/** Resolves the chat template (loading a file if needed) and makes the model. */
export async function createTextCompletionModel(
  options: TextCompletionModelOptions,
): Promise<TextCompletionModel> {
  let template: ChatTemplate;
  if (options.chatTemplate instanceof ChatTemplate) template = options.chatTemplate;
  else if (options.chatTemplate) template = await loadChatTemplate(options.chatTemplate);
  else {
    const builtin = options.model
      ? resolveBuiltinChatTemplateName(options.model.split("/").pop() ?? options.model)
      : undefined;
    if (!builtin) {
      throw new ModelConfigError(
        `The completions backend renders the prompt itself and needs the model's chat template${options.model ? ` (none is built in for "${options.model}")` : ""}: pass chatTemplate { tokenizerConfig: "<dir>/tokenizer_config.json" }, { gguf: "<file.gguf>" } or { builtin: "chatml" | "qwen2.5" | "qwen3" | "llama3" | "mistral" | "gemma" }.`,
      );
    }
    template = builtinChatTemplate(builtin);
  }
  return new TextCompletionModel({ ...options, chatTemplate: template });
}
