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
import { DeferredText } from "./deferred-text.js";
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
 * the loop runs at once gets its result back into the generation, one that needs a decision stops the turn. Without
 * that hook (/v1: the server runs no tool) every call of the response — parallel ones included — comes back as call
 * events after its text.
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
  return pumpGeneration(
    request,
    async (queue, controller) => {
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
      // A JSON answer is held to its grammar as a whole: no bias (samplingFor). Free text and calls share one generation
      // here, so a tiny model keeps its ban on raw bytes (without it a random-weights model writes no forced call) but
      // for the bytes of what the call's grammar may require (names and parameters, not the descriptions the prompt
      // shows): an enum of "Zürich" and "Genève" hung it for good.
      const bias = sampling.answerGrammar
        ? undefined
        : functions
          ? await loaded.biasWriting(
              JSON.stringify(Object.entries(functions).map(([name, f]) => [name, f.params])),
            )
          : loaded.tokenBias;
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
      // Tokens generated, counted on the sequence (this generation's own): node-llama-cpp's onToken does not see the
      // tokens of function calls, so counting there reported 0 completion tokens for a response made of calls.
      const meter = input.sequence.tokenMeter;
      const outputBefore = meter.usedOutputTokens;
      const generated = () => meter.usedOutputTokens - outputBefore;
      let remaining = sampling.maxTokens;
      let reason: ModelFinishReason = "stop";
      let calls = 0;
      const execute = request.executeCall;
      // Tokens' text goes to the consumers off the path between one token and the next decode (see DeferredText).
      const text = new DeferredText((delta) => queue.push({ type: "text-delta", text: delta }));
      try {
        for (;;) {
          type Settled = { call: LlamaChatResponseFunctionCall<ChatModelFunctions>; result?: string };
          const handlers: Promise<Settled>[] = [];
          const settle = async (
            call: LlamaChatResponseFunctionCall<ChatModelFunctions>,
            run: NonNullable<typeof execute>,
          ): Promise<Settled> => {
            // The loop must have seen the text before the call: it records text and call in order.
            text.flush();
            await queue.drained();
            const args = isRecord(call.params) ? call.params : {};
            const outcome = await run({ name: call.functionName, arguments: args });
            if (outcome.status === "done") return { call, result: resultForModel(outcome.result) };
            controller.abort(STOP_FOR_CALL);
            return { call };
          };
          let response: Awaited<ReturnType<typeof chat.generateResponse>>;
          try {
            response = await chat.generateResponse(history, {
              functions,
              // One call at most: node-llama-cpp ends the response after it instead of letting the model go on.
              ...(request.parallelToolCalls === false ? { maxParallelFunctionCalls: 1 } : {}),
              // Without a loop hook (/v1: the server runs no tool) nothing runs mid-generation: node-llama-cpp ends the
              // response after its calls — every parallel call of it, where the chat wrapper has a syntax for them — and
              // returns them in `functionCalls`, handed over below.
              ...(execute
                ? {
                    onFunctionCall: (call: LlamaChatResponseFunctionCall<ChatModelFunctions>) => {
                      calls += 1;
                      handlers.push(settle(call, execute));
                    },
                  }
                : {}),
              onTextChunk: (delta) => text.add(delta),
              ...samplingFor(sampling, () => {}, bias),
              // A JSON answer format; set only when no function is offered. node-llama-cpp's option type forbids
              // `grammar` beside `onFunctionCall` even then, while at run time it refuses a grammar only with functions
              // enabled.
              ...(answerGrammarOption(sampling) as object),
              signal: controller.signal,
              stopOnAbortSignal: true,
              maxTokens: Math.max(1, remaining),
              ...(contextWindow ? { lastEvaluationContextWindow: { history: contextWindow } } : {}),
            });
          } catch (error) {
            text.flush();
            // A call the loop keeps stops generation; when the response holds nothing but calls yet (a forced call, and
            // a wrapper that lets the model go on to a parallel call), node-llama-cpp throws the abort reason instead of
            // returning. The calls are the loop's already: the turn ends as it does when it returns.
            if (controller.signal.reason !== STOP_FOR_CALL || handlers.length === 0) throw error;
            await Promise.all(handlers);
            reason = "tool-calls";
            break;
          }
          text.flush();
          force = false;
          remaining = sampling.maxTokens - generated();
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
          if (!execute && response.functionCalls?.length) {
            // After the text (already streamed), in the order the model made them. Calls that are complete stay calls
            // even when the token budget ran out after them (as text mode does); one cut off mid-way is not returned.
            for (const call of response.functionCalls) {
              const id = generateCallId();
              const args = isRecord(call.params) ? call.params : {};
              queue.push({ type: "call-start", id, name: call.functionName });
              queue.push({ type: "call-end", id, name: call.functionName, arguments: args });
            }
            reason = "tool-calls";
            break;
          }
          const stop = response.metadata.stopReason;
          reason = stop === "maxTokens" ? "length" : stop === "abort" && calls > 0 ? "tool-calls" : "stop";
          break;
        }
      } finally {
        text.dispose();
        chat.dispose({ disposeSequence: false });
      }
      // node-llama-cpp reports no prompt count (its meter leaves out tokens reused from the cache); what the sequence
      // holds now, less what was generated, is the prompt as evaluated — what an OpenAI-compatible server reports.
      const inputTokens = Math.max(0, input.sequence.nextTokenIndex - generated());
      queue.push({ type: "finish", reason, usage: { inputTokens, outputTokens: generated() } });
    },
    (generation) => loaded.holdUntil(input.sequence, generation),
  );
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
