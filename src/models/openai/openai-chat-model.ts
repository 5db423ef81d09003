import type OpenAI from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
} from "openai/resources/chat/completions";
import type { AgentMessage } from "../../core/agent-message.js";
import type {
  LanguageModel,
  ModelEvent,
  ModelFinishReason,
  ModelRequest,
  ModelUsage,
} from "../../core/language-model.js";
import { enforceToolChoice } from "../enforce-tool-choice.js";
import { type HttpBackend, type HttpModelOptions, resolveHttpModel } from "../http-model-options.js";
import {
  type ToOpenAIMessagesOptions,
  toOpenAIChatMessages,
  toOpenAIToolChoice,
  toOpenAITools,
} from "../message-converters/openai-chat-messages.js";
import { ModelRequestError } from "../model-errors.js";
import { openAISamplingFields } from "../openai-sampling-fields.js";
import { createOpenAIClient } from "./create-openai-client.js";
import { describeOpenAIError } from "./describe-openai-error.js";
import { ToolCallDeltaAccumulator } from "./tool-call-delta-accumulator.js";

export interface OpenAIChatModelOptions extends HttpModelOptions {
  /** Model name sent to the server, e.g. `gpt-4.1-mini`, `qwen2.5:7b` (Ollama). */
  model: string;
  /** Default: `OPENAI_BASE_URL`, else `https://api.openai.com/v1`. Ollama: `http://localhost:11434/v1`. */
  baseURL?: string;
  /** Default: `OPENAI_API_KEY`; local servers that need none get a placeholder. */
  apiKey?: string;
  /** Always sent (llama.cpp's default is unbounded). Default 4096. */
  maxTokens?: number;
  /** Default `max_completion_tokens` for api.openai.com (reasoning models reject `max_tokens`), `max_tokens` elsewhere. */
  maxTokensParam?: "max_tokens" | "max_completion_tokens";
  /** Sampling defaults; a request's own values (an OpenAI client's temperature…) override them for that request. */
  temperature?: number;
  topP?: number;
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  /** Sent only when set; `false` asks for at most one call per turn. */
  parallelToolCalls?: boolean;
  /** Ask for a usage chunk (`stream_options.include_usage`). Default true. */
  includeUsage?: boolean;
  /** `content` of replayed assistant messages that only call tools. Default `""` (see ToOpenAIMessagesOptions). */
  emptyCallContent?: ToOpenAIMessagesOptions["emptyCallContent"];
  /** Re-asks when `required`/`{name}` was answered without the call (servers that ignore tool_choice). Default 1. */
  maxForcedRetries?: number;
  /** Extra JSON fields for servers with their own options (e.g. `{ top_k: 20 }`, `{ chat_template_kwargs: {…} }`). */
  extraBody?: Record<string, unknown>;
  /** A configured client (proxies, custom fetch); baseURL/apiKey/headers/timeoutMs are then ignored. */
  client?: OpenAI;
}

/** The configured budget, lowered to the request's own when it has a smaller one. */
function capTokens(configured: number, requested: number | undefined): number {
  return requested === undefined ? configured : Math.min(configured, requested);
}

function mapFinishReason(reason: string | null | undefined, calls: number): ModelFinishReason {
  if (calls > 0) return "tool-calls";
  switch (reason) {
    case "stop":
      return "stop";
    case "length":
      return "length";
    case "tool_calls":
    case "function_call":
      return "tool-calls";
    case "content_filter":
      return "content-filter";
    default:
      return "other";
  }
}

/** Reasoning text as servers stream it: `reasoning_content` (vLLM, llama.cpp, DeepSeek) or `reasoning` (Ollama, OpenRouter). */
function reasoningOf(delta: ChatCompletionChunk.Choice.Delta): string | undefined {
  const d = delta as { reasoning_content?: unknown; reasoning?: unknown };
  if (typeof d.reasoning_content === "string" && d.reasoning_content !== "") return d.reasoning_content;
  if (typeof d.reasoning === "string" && d.reasoning !== "") return d.reasoning;
  return undefined;
}

const OPENAI: HttpBackend = {
  name: "openai",
  exampleModel: "gpt-4.1-mini",
  baseURLEnv: "OPENAI_BASE_URL",
  defaultBaseURL: "https://api.openai.com/v1",
};

/**
 * OpenAI-compatible chat completions with native tools (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server),
 * streamed.
 */
export class OpenAIChatModel implements LanguageModel {
  readonly id: string;
  readonly supportsNativeTools = true;
  /** Created at the first request (the SDK loads then). */
  #client: Promise<OpenAI> | undefined;
  readonly #options: OpenAIChatModelOptions;
  readonly #baseURL: string;

  constructor(options: OpenAIChatModelOptions) {
    ({ id: this.id, baseURL: this.#baseURL } = resolveHttpModel(OPENAI, options));
    this.#options = options;
  }

  stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    return enforceToolChoice(request.toolChoice, this.#options.maxForcedRetries ?? 1, (extra) =>
      this.#attempt(request, extra),
    );
  }

  #body(request: ModelRequest, extra: readonly AgentMessage[]): ChatCompletionCreateParamsStreaming {
    const o = this.#options;
    const messages = toOpenAIChatMessages(
      [...request.messages, ...extra],
      o.emptyCallContent === undefined ? {} : { emptyCallContent: o.emptyCallContent },
    );
    const body: ChatCompletionCreateParamsStreaming = { model: o.model, messages, stream: true };
    const param =
      o.maxTokensParam ?? (/api\.openai\.com/.test(this.#baseURL) ? "max_completion_tokens" : "max_tokens");
    body[param] = capTokens(o.maxTokens ?? 4096, request.maxTokens);
    if (o.includeUsage !== false) body.stream_options = { include_usage: true };
    const r = request.sampling ?? {};
    Object.assign(body, openAISamplingFields(r, o));
    // Native tools: the server keeps calls out of the text, so the stop strings can go to it as they are.
    if (r.stop?.length) body.stop = [...r.stop];
    const format = request.responseFormat;
    if (format && format.type !== "text")
      body.response_format =
        format.type === "json_schema"
          ? {
              type: "json_schema",
              json_schema: {
                name: format.name,
                schema: format.schema,
                ...(format.strict !== undefined ? { strict: format.strict } : {}),
              },
            }
          : { type: "json_object" };
    // No tools, no tool_choice: some servers answer 400 to tool_choice without tools (vLLM #10000).
    if (request.tools.length > 0) {
      body.tools = toOpenAITools(request.tools);
      body.tool_choice = toOpenAIToolChoice(request.toolChoice);
      const parallel = request.parallelToolCalls ?? o.parallelToolCalls;
      if (parallel !== undefined) body.parallel_tool_calls = parallel;
    }
    return { ...body, ...o.extraBody } as ChatCompletionCreateParamsStreaming;
  }

  async *#attempt(request: ModelRequest, extra: readonly AgentMessage[]): AsyncIterable<ModelEvent> {
    const o = this.#options;
    let stream: AsyncIterable<ChatCompletionChunk>;
    try {
      this.#client ??= createOpenAIClient(o, this.#baseURL);
      stream = await (await this.#client).chat.completions.create(this.#body(request, extra), {
        signal: request.signal,
      });
    } catch (error) {
      throw await describeOpenAIError(error, this.#baseURL, o.model);
    }
    const calls = new ToolCallDeltaAccumulator();
    let finish: string | null | undefined;
    let usage: ModelUsage | undefined;
    let chunks = 0;
    try {
      for await (const chunk of stream) {
        chunks += 1;
        if (chunk.usage) {
          usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
          const reasoning = chunk.usage.completion_tokens_details?.reasoning_tokens;
          if (reasoning) usage.reasoningTokens = reasoning;
        }
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta ?? {};
        const reasoning = reasoningOf(delta);
        if (reasoning) yield { type: "reasoning-delta", text: reasoning };
        if (typeof delta.content === "string" && delta.content !== "")
          yield { type: "text-delta", text: delta.content };
        for (const tc of delta.tool_calls ?? []) yield* calls.feed(tc);
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    } catch (error) {
      throw await describeOpenAIError(error, this.#baseURL, o.model);
    }
    if (chunks === 0)
      throw new ModelRequestError(
        `The model server at ${this.#baseURL} ended the stream without sending anything.`,
      );
    yield* calls.finish();
    yield { type: "finish", reason: mapFinishReason(finish, calls.count), ...(usage ? { usage } : {}) };
  }
}

export function createOpenAIChatModel(options: OpenAIChatModelOptions): OpenAIChatModel {
  return new OpenAIChatModel(options);
}
