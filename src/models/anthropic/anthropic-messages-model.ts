import type Anthropic from "@anthropic-ai/sdk";
import type {
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type {
  LanguageModel,
  ModelEvent,
  ModelFinishReason,
  ModelRequest,
  ModelUsage,
} from "../../core/language-model.js";
import {
  type HttpBackend,
  type HttpModelOptions,
  resolveHttpModel,
  sdkClientOptions,
} from "../http-model-options.js";
import {
  toAnthropicMessages,
  toAnthropicToolChoice,
  toAnthropicTools,
} from "../message-converters/anthropic-messages.js";
import { ModelConfigError, ModelRequestError, UnsupportedSettingError } from "../model-errors.js";

export interface AnthropicMessagesModelOptions extends HttpModelOptions {
  /** e.g. `claude-sonnet-4-5`. */
  model: string;
  /** Default `ANTHROPIC_API_KEY`. */
  apiKey?: string;
  /** Default `ANTHROPIC_BASE_URL`, else https://api.anthropic.com. */
  baseURL?: string;
  /** Required by the API. Default 4096. */
  maxTokens?: number;
  /** `false` → at most one call per turn (`disable_parallel_tool_use`). */
  parallelToolCalls?: boolean;
  /** Extended thinking budget in tokens; its text streams as reasoning. */
  thinkingBudgetTokens?: number;
  client?: Anthropic;
}

function mapStopReason(reason: string | null | undefined, calls: number): ModelFinishReason {
  if (calls > 0) return "tool-calls";
  switch (reason) {
    case "end_turn":
    case "stop_sequence":
      return "stop";
    case "max_tokens":
    case "model_context_window_exceeded":
      return "length";
    case "tool_use":
      return "tool-calls";
    case "refusal":
      return "content-filter";
    default:
      return "other";
  }
}

type AnthropicSdk = typeof import("@anthropic-ai/sdk");
let sdk: Promise<AnthropicSdk> | undefined;

/** The Anthropic SDK, imported at a model's first request rather than with toolbridge (see loadOpenAISdk). */
function loadAnthropicSdk(): Promise<AnthropicSdk> {
  sdk ??= import("@anthropic-ai/sdk").catch((error: unknown) => {
    sdk = undefined;
    throw error;
  });
  return sdk;
}

/** Only called once a request was made, so the SDK is loaded by then. */
async function describeAnthropicError(error: unknown, baseURL: string): Promise<unknown> {
  const { APIConnectionError, APIError, APIUserAbortError } = await loadAnthropicSdk();
  if (error instanceof APIUserAbortError) return error;
  if (error instanceof APIConnectionError) {
    return new ModelRequestError(
      `Could not reach the Anthropic API at ${baseURL}: ${error.message}. Check the network and ANTHROPIC_BASE_URL.`,
    );
  }
  if (error instanceof APIError) {
    const status = error.status;
    if (status === 401 || status === 403) {
      return new ModelRequestError(
        `Anthropic refused the API key (${status}). Set ANTHROPIC_API_KEY to a valid key.`,
        status,
      );
    }
    const detail = error.message.replace(/^\d{3}\s*/, "");
    const retry =
      status === 429 || status === 529 || /overloaded/i.test(detail) ? " Try again in a moment." : "";
    return new ModelRequestError(`Anthropic answered ${status ?? "an error"}: ${detail}.${retry}`, status);
  }
  return error;
}

const ANTHROPIC: HttpBackend = {
  name: "anthropic",
  exampleModel: "claude-sonnet-4-5",
  baseURLEnv: "ANTHROPIC_BASE_URL",
  defaultBaseURL: "https://api.anthropic.com",
};

/** Anthropic Messages API with native tools, streamed. */
export class AnthropicMessagesModel implements LanguageModel {
  readonly id: string;
  readonly supportsNativeTools = true;
  /** Created at the first request (the SDK loads then). */
  #client: Promise<Anthropic> | undefined;
  readonly #apiKey: string | undefined;
  readonly #options: AnthropicMessagesModelOptions;
  readonly #baseURL: string;

  constructor(options: AnthropicMessagesModelOptions) {
    ({ id: this.id, baseURL: this.#baseURL } = resolveHttpModel(ANTHROPIC, options));
    this.#options = options;
    const apiKey = options.apiKey ?? process.env.ANTHROPIC_API_KEY;
    if (!options.client && !apiKey) {
      throw new ModelConfigError(
        "The anthropic backend needs an API key: set ANTHROPIC_API_KEY or pass apiKey.",
      );
    }
    this.#apiKey = apiKey;
  }

  async #createClient(): Promise<Anthropic> {
    if (this.#options.client) return this.#options.client;
    const { default: AnthropicClient } = await loadAnthropicSdk();
    return new AnthropicClient({
      apiKey: this.#apiKey ?? null,
      baseURL: this.#baseURL,
      ...sdkClientOptions(this.#options),
    });
  }

  #body(request: ModelRequest): MessageCreateParamsStreaming {
    const o = this.#options;
    const { system, messages } = toAnthropicMessages(request.messages);
    const body: MessageCreateParamsStreaming = {
      model: o.model,
      max_tokens: Math.min(o.maxTokens ?? 4096, request.maxTokens ?? Number.POSITIVE_INFINITY),
      messages,
      stream: true,
    };
    if (system !== undefined) body.system = system;
    // Of the request's sampling, the Messages API takes stop sequences. It has no seed and no penalties, and it has
    // deprecated temperature and top_p (SDK 1.12 no longer types them): those are not sent.
    const stop = request.sampling?.stop;
    if (stop?.length) body.stop_sequences = [...stop];
    // Structured outputs: the answer held to a JSON schema.
    if (request.responseFormat?.type === "json_schema")
      body.output_config = { format: { type: "json_schema", schema: request.responseFormat.schema } };
    if (o.thinkingBudgetTokens) body.thinking = { type: "enabled", budget_tokens: o.thinkingBudgetTokens };
    if (request.tools.length > 0) {
      body.tools = toAnthropicTools(request.tools);
      body.tool_choice = toAnthropicToolChoice(
        request.toolChoice,
        (request.parallelToolCalls ?? o.parallelToolCalls) === false ? { parallel: false } : {},
      );
    }
    return body;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
    if (request.responseFormat?.type === "json_object")
      throw new UnsupportedSettingError(
        'The anthropic backend cannot answer "any JSON object" (response_format json_object): the Messages API holds answers to a given schema only. Send response_format {"type": "json_schema", "json_schema": {"name", "schema"}}.',
        "responseFormat",
      );
    let stream: AsyncIterable<RawMessageStreamEvent>;
    try {
      this.#client ??= this.#createClient();
      stream = await (await this.#client).messages.create(this.#body(request), { signal: request.signal });
    } catch (error) {
      throw await describeAnthropicError(error, this.#baseURL);
    }
    // Blocks arrive one at a time (start, deltas, stop), indexed; tool inputs are JSON text to concatenate.
    const blocks = new Map<
      number,
      { kind: "tool"; id: string; name: string; json: string } | { kind: "other" }
    >();
    const usage: ModelUsage = {};
    let stop: string | null | undefined;
    let stopSequence: string | undefined;
    let calls = 0;
    try {
      for await (const event of stream) {
        switch (event.type) {
          case "message_start":
            usage.inputTokens = event.message.usage.input_tokens;
            usage.outputTokens = event.message.usage.output_tokens;
            break;
          case "content_block_start": {
            const block = event.content_block;
            if (block.type === "tool_use") {
              blocks.set(event.index, { kind: "tool", id: block.id, name: block.name, json: "" });
              yield { type: "call-start", id: block.id, name: block.name };
            } else {
              blocks.set(event.index, { kind: "other" });
              if (block.type === "text" && block.text) yield { type: "text-delta", text: block.text };
            }
            break;
          }
          case "content_block_delta": {
            const d = event.delta;
            if (d.type === "text_delta") yield { type: "text-delta", text: d.text };
            else if (d.type === "thinking_delta") yield { type: "reasoning-delta", text: d.thinking };
            else if (d.type === "input_json_delta") {
              const block = blocks.get(event.index);
              if (block?.kind === "tool" && d.partial_json !== "") {
                block.json += d.partial_json;
                yield { type: "call-args-delta", id: block.id, text: d.partial_json };
              }
            }
            break;
          }
          case "content_block_stop": {
            const block = blocks.get(event.index);
            if (block?.kind === "tool") {
              calls += 1;
              yield {
                type: "call-end",
                id: block.id,
                name: block.name,
                arguments: block.json.trim() === "" ? {} : block.json,
              };
            }
            break;
          }
          case "message_delta":
            stop = event.delta.stop_reason;
            stopSequence = event.delta.stop_sequence ?? undefined;
            // Cumulative output count.
            if (event.usage?.output_tokens !== undefined) usage.outputTokens = event.usage.output_tokens;
            break;
          case "message_stop":
            break;
        }
      }
    } catch (error) {
      throw await describeAnthropicError(error, this.#baseURL);
    }
    const reason = mapStopReason(stop, calls);
    yield {
      type: "finish",
      reason,
      usage,
      ...(reason === "stop" && stop === "stop_sequence" && stopSequence ? { stopSequence } : {}),
    };
  }
}

export function createAnthropicMessagesModel(options: AnthropicMessagesModelOptions): AnthropicMessagesModel {
  return new AnthropicMessagesModel(options);
}
