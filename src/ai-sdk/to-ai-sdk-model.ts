import type {
  LanguageModelV3,
  LanguageModelV3CallOptions,
  LanguageModelV3Content,
  LanguageModelV3StreamPart,
  SharedV3Warning,
} from "@ai-sdk/provider";
import type { LanguageModel, ModelEvent, ModelRequest, ResponseFormat } from "../core/language-model.js";
import { fromAiSdkTools } from "./from-ai-sdk-tools.js";
import { StreamPartWriter, toFinishReason, toUsage } from "./stream-part-writer.js";
import { toAgentMessages } from "./to-agent-messages.js";

export interface AiSdkModelInfo {
  /** The SDK's `provider` (telemetry, logs), e.g. `toolbridge.llama`. */
  provider?: string;
  /** The SDK's `modelId`. Default: the toolbridge model's id. */
  modelId?: string;
}

function responseFormatOf(options: LanguageModelV3CallOptions): ResponseFormat | undefined {
  const format = options.responseFormat;
  if (format?.type !== "json") return undefined;
  return format.schema
    ? {
        type: "json_schema",
        name: format.name ?? "response",
        schema: format.schema as Record<string, unknown>,
      }
    : { type: "json_object" };
}

/** The request a toolbridge model gets for an AI SDK call, and what of the call it cannot honour. */
function toRequest(options: LanguageModelV3CallOptions, signal: AbortSignal) {
  const offered = fromAiSdkTools(options);
  const warnings: SharedV3Warning[] = [...offered.warnings];
  if (options.topK !== undefined) warnings.push({ type: "unsupported", feature: "topK" });
  const sampling = {
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.topP !== undefined ? { topP: options.topP } : {}),
    ...(options.seed !== undefined ? { seed: options.seed } : {}),
    ...(options.stopSequences?.length ? { stop: options.stopSequences } : {}),
    ...(options.presencePenalty !== undefined ? { presencePenalty: options.presencePenalty } : {}),
    ...(options.frequencyPenalty !== undefined ? { frequencyPenalty: options.frequencyPenalty } : {}),
  };
  const responseFormat = responseFormatOf(options);
  const request: ModelRequest = {
    messages: toAgentMessages(options.prompt),
    tools: offered.tools,
    toolChoice: offered.toolChoice,
    signal,
    ...(options.maxOutputTokens !== undefined ? { maxTokens: options.maxOutputTokens } : {}),
    ...(Object.keys(sampling).length ? { sampling } : {}),
    ...(responseFormat ? { responseFormat } : {}),
  };
  return { request, warnings };
}

/** The call's own signal, and one this adapter fires when the SDK stops reading. */
function linkedAbort(signal: AbortSignal | undefined): AbortController {
  const controller = new AbortController();
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  return controller;
}

/**
 * A toolbridge model (`LanguageModel`: node-llama-cpp, an OpenAI or Anthropic backend, text completions, replay) as
 * an AI SDK language model (specification V3, which `ai` 6 and 7 both take). The SDK's prompt and tools become a
 * toolbridge request; the model's events become the SDK's parts — text, reasoning, `tool-input-*` and `tool-call`
 * (a backend in text mode has already read its calls out of its text; native ones, node-llama-cpp's included, are
 * grammar-constrained). The SDK runs the tools: the model only asks for them.
 */
export function toAiSdkModel(
  model: LanguageModel | (() => Promise<LanguageModel>),
  info: AiSdkModelInfo = {},
): LanguageModelV3 {
  let resolved: Promise<LanguageModel> | undefined;
  const get = () => {
    resolved ??= typeof model === "function" ? model() : Promise.resolve(model);
    resolved.catch(() => {
      resolved = undefined; // a failed load (a missing file) is tried again on the next call
    });
    return resolved;
  };
  const modelId = info.modelId ?? (typeof model === "function" ? "toolbridge" : model.id);

  const open = async (options: LanguageModelV3CallOptions) => {
    const abort = linkedAbort(options.abortSignal);
    const { request, warnings } = toRequest(options, abort.signal);
    const events = (await get()).stream(request)[Symbol.asyncIterator]();
    // The first event is awaited here: a model that cannot load or start fails the call itself, not its stream.
    const first = await events.next();
    return { abort, events, first, warnings };
  };

  return {
    specificationVersion: "v3",
    provider: info.provider ?? "toolbridge",
    modelId,
    supportedUrls: {},

    async doGenerate(options) {
      const { abort, events, first, warnings } = await open(options);
      const content: LanguageModelV3Content[] = [];
      const writer = new StreamPartWriter((part) => {
        if (part.type === "text-delta" || part.type === "reasoning-delta") {
          const kind = part.type === "text-delta" ? "text" : "reasoning";
          const last = content.at(-1);
          if (last?.type === kind) last.text += part.delta;
          else content.push({ type: kind, text: part.delta });
        } else if (part.type === "tool-call") content.push(part);
      });
      let finish: Extract<ModelEvent, { type: "finish" }> = { type: "finish", reason: "stop" };
      try {
        for (let step = first; !step.done; step = await events.next()) {
          if (step.value.type === "finish") finish = step.value;
          else writer.write(step.value);
        }
      } catch (error) {
        abort.abort();
        throw error;
      }
      writer.end();
      return {
        content,
        finishReason: toFinishReason(finish.reason),
        usage: toUsage(finish.usage),
        warnings,
        response: { modelId, timestamp: new Date() },
      };
    },

    async doStream(options) {
      const { abort, events, first, warnings } = await open(options);
      let queue: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings },
        { type: "response-metadata", modelId, timestamp: new Date() },
      ];
      const writer = new StreamPartWriter((part) => queue.push(part));
      let next: Promise<IteratorResult<ModelEvent>> | undefined = Promise.resolve(first);
      const stream = new ReadableStream<LanguageModelV3StreamPart>({
        async pull(controller) {
          try {
            while (next !== undefined && queue.length === 0) {
              const step = await next;
              if (step.done) {
                // A model whose stream ends without a finish event still ends the SDK's stream properly.
                writer.end();
                queue.push({
                  type: "finish",
                  finishReason: toFinishReason("stop"),
                  usage: toUsage(undefined),
                });
                next = undefined;
              } else if (step.value.type === "finish") {
                writer.end();
                queue.push({
                  type: "finish",
                  finishReason: toFinishReason(step.value.reason),
                  usage: toUsage(step.value.usage),
                });
                next = undefined;
                // The turn is over: the model's own clean-up (its context sequence goes back) runs now.
                await events.return?.();
              } else {
                writer.write(step.value);
                next = events.next();
              }
            }
          } catch (error) {
            abort.abort();
            writer.end();
            queue.push({ type: "error", error });
            queue.push({ type: "finish", finishReason: toFinishReason("error"), usage: toUsage(undefined) });
            next = undefined;
          }
          const ready = queue;
          queue = [];
          for (const part of ready) controller.enqueue(part);
          if (next === undefined) controller.close();
        },
        async cancel() {
          // The SDK stopped reading (an abort, a stop condition): generation stops and the model is let go.
          abort.abort();
          await events.return?.();
        },
      });
      return { stream };
    },
  };
}
