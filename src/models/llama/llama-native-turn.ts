import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelFunctions,
  ChatWrapper,
  ChatWrapperGeneratedContextState,
  LlamaChatResponseFunctionCall,
  LlamaContextSequence,
} from "node-llama-cpp";
import type { ModelEvent, ModelFinishReason, ModelRequest } from "../../core/language-model.js";
import { generateCallId } from "../generate-call-id.js";
import { resultForModel, toLlamaChatHistory } from "./llama-chat-history.js";
import {
  answerGrammarOption,
  isForced,
  offeredTools,
  pumpGeneration,
  type Sampling,
  STOP_FOR_CALL,
  samplingFor,
} from "./llama-generation.js";
import type { LoadedLlama } from "./llama-runtime.js";
import { toGbnfJsonSchema } from "./to-gbnf-json-schema.js";

/**
 * One turn in native mode: node-llama-cpp's function calling, through the chat wrapper resolved from the GGUF's chat
 * template. Parameters are grammar-enforced; calls are handed to the loop as they are made (`executeCall`): a call
 * the loop runs at once gets its result back into the generation, one that needs a decision stops the turn.
 * `required`/`{name}` enter function-calling mode from the first token (node-llama-cpp's own trigger, injected).
 */
export function streamNativeTurn(input: {
  request: ModelRequest;
  loaded: LoadedLlama;
  sequence: LlamaContextSequence;
  wrapper: ChatWrapper;
  sampling: Sampling;
  maxStringLength: number | undefined;
  /** The chat history as generation left it, after every generation (for inspection and tests). */
  onHistory: (history: ChatHistoryItem[]) => void;
}): AsyncGenerator<ModelEvent> {
  const { request, loaded, sampling, maxStringLength } = input;
  return pumpGeneration(request, async (queue, controller) => {
    const { LlamaChat, LlamaText } = await import("node-llama-cpp");
    const inner = input.wrapper;
    const offered = offeredTools(request.tools, request.toolChoice);
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
    const chat = new LlamaChat({ contextSequence: input.sequence, chatWrapper: wrapper });
    let history = toLlamaChatHistory(request.messages, request.tools);
    let contextWindow: ChatHistoryItem[] | undefined;
    let remaining = sampling.maxTokens;
    let reason: ModelFinishReason = "stop";
    let calls = 0;
    try {
      for (;;) {
        type Settled = { call: LlamaChatResponseFunctionCall<ChatModelFunctions>; result?: string };
        const handlers: Promise<Settled>[] = [];
        const settle = async (call: LlamaChatResponseFunctionCall<ChatModelFunctions>): Promise<Settled> => {
          const args = isRecord(call.params) ? call.params : {};
          if (!request.executeCall) {
            // No loop hook: the call goes back as a call event and generation stops here.
            const id = generateCallId();
            queue.push({ type: "call-start", id, name: call.functionName });
            queue.push({ type: "call-end", id, name: call.functionName, arguments: args });
            controller.abort(STOP_FOR_CALL);
            return { call };
          }
          // The loop must have seen the text before the call: it records text and call in order.
          await queue.drained();
          const outcome = await request.executeCall({ name: call.functionName, arguments: args });
          if (outcome.status === "done") return { call, result: resultForModel(outcome.result) };
          controller.abort(STOP_FOR_CALL);
          return { call };
        };
        const response = await chat.generateResponse(history, {
          functions,
          onFunctionCall: (call) => {
            calls += 1;
            handlers.push(settle(call));
          },
          onTextChunk: (text) => queue.push({ type: "text-delta", text }),
          ...samplingFor(loaded, sampling, (spent) => {
            remaining -= spent;
          }),
          // A JSON answer format; set only when no function is offered. node-llama-cpp's option type forbids `grammar`
          // beside `onFunctionCall` even then, while at run time it refuses a grammar only with functions enabled.
          ...(answerGrammarOption(sampling) as object),
          signal: controller.signal,
          stopOnAbortSignal: true,
          maxTokens: Math.max(1, remaining),
          ...(contextWindow ? { lastEvaluationContextWindow: { history: contextWindow } } : {}),
        });
        force = false;
        history = response.lastEvaluation.cleanHistory;
        contextWindow = response.lastEvaluation.contextWindow;
        input.onHistory(history);
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
          input.onHistory(history);
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
    queue.push({ type: "finish", reason, usage: { outputTokens: sampling.maxTokens - remaining } });
  });
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
