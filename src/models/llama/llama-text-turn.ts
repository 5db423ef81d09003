import type { LlamaContextSequence, Token, TokenBias } from "node-llama-cpp";
import type { ModelEvent, ModelFinishReason, ModelRequest } from "../../core/language-model.js";
import type { ToolCallProtocol } from "../../protocols/protocol.js";
import type { ChatTemplate } from "../chat-template/chat-template.js";
import { renderCompletionPrompt } from "../completions/render-completion-prompt.js";
import { SingleCallGate } from "../single-call-gate.js";
import { offersCalls, TextCallReader } from "../text-call-reader.js";
import { type CallFrameCache, cachedCallBodyGrammar } from "./call-body-grammar-cache.js";
import { CopiedWords } from "./copied-words.js";
import { copySources } from "./copy-grammar.js";
import { DeferredText } from "./deferred-text.js";
import {
  answerGrammarOption,
  isForced,
  offeredTools,
  pumpGeneration,
  type Sampling,
  samplingFor,
} from "./llama-generation.js";
import type { LoadedLlama } from "./llama-runtime.js";
import { onlyUnknownTools, toolByWords } from "./tool-by-words.js";

const STOP_AT_FIRST_CALL = new Error("first call complete (parallel tool calls off)");

/**
 * One turn in text mode: the chat template and the protocol render the prompt (the catalogue included), the model
 * completes it, and the protocol's parser reads calls out of the text as it streams. Free text runs until the
 * protocol's call marker; the call's body is then generated under the grammar of the offered tools' schemas.
 * `required` starts the answer with the marker, `{name}` with the call up to its arguments, grammar on at once.
 * `callGrammar: false` leaves calls unconstrained (to measure what the grammar adds).
 */
export function streamTextTurn(input: {
  request: ModelRequest;
  loaded: LoadedLlama;
  sequence: LlamaContextSequence;
  protocol: ToolCallProtocol;
  template: ChatTemplate;
  frames: CallFrameCache;
  /** Constrain call bodies with the grammar of the offered tools' schemas (default true). */
  callGrammar?: boolean;
  sampling: Sampling;
  maxStringLength: number | undefined;
  /** Hold plain string arguments to the words of the conversation (copy-grammar.ts). */
  copyArguments: boolean;
  /** In an answer after a tool result, finish a word of the result the model begins (copied-words.ts). */
  copyWords: boolean;
  /**
   * The tools the model was trained on, when a call among others is to be held to the tool the request's words point
   * at (tool-by-words.ts); undefined leaves the choice to the model.
   */
  knownTools?: ReadonlySet<string> | undefined;
}): AsyncGenerator<ModelEvent> {
  const { request, loaded, protocol, template, sampling, maxStringLength } = input;
  return pumpGeneration(
    request,
    async (queue, controller) => {
      const { LlamaCompletion } = await import("node-llama-cpp");
      const model = loaded.model;
      const choice = request.toolChoice;
      const { prompt, forcedPrefix } = renderCompletionPrompt({
        messages: request.messages,
        tools: request.tools,
        toolChoice: choice,
        protocol,
        template,
        ...(request.parallelToolCalls === false ? { parallel: false } : {}),
      });
      const withTools = offersCalls(request);
      const offered = offeredTools(request.tools, choice);
      // Without the call grammar the model writes calls freely, as any text-only backend's would be read.
      const frames = withTools && input.callGrammar !== false ? input.frames.framesFor(offered) : undefined;
      // The words a copied argument may use: what the model was shown of the conversation, and the tools' schemas; among
      // tools the model never saw, whole spans of what the person wrote (span-grammar.ts).
      const unseen = input.knownTools !== undefined && onlyUnknownTools(offered, input.knownTools);
      // A tiny model (the one with a token bias) copies the characters outside ASCII it writes too (CopySources.characters).
      const copy =
        input.copyArguments && frames
          ? copySources(request.messages, offered, {
              spans: unseen,
              copiedCharacters: loaded.tokenBias !== undefined,
            })
          : undefined;
      // A call the model starts on its own among tools it never saw names the one the request's words point at, if any.
      const byWords =
        input.knownTools && frames ? toolByWords(offered, request.messages, input.knownTools) : undefined;
      const grammarFor = (named: string | undefined) => {
        const only = named === undefined ? byWords : undefined;
        return cachedCallBodyGrammar({
          llama: loaded.llama,
          protocol,
          frames: (frames?.frames ?? []).filter((f) => only === undefined || f.name === only),
          tools: only === undefined ? offered : offered.filter((t) => t.name === only),
          maxStringLength,
          named,
          copy,
        });
      };
      // An answer quoting a tool result writes each of the result's words it begins out whole.
      const copied = input.copyWords ? CopiedWords.from(request.messages, offered) : undefined;
      const reader = new TextCallReader({ protocol, tools: request.tools, toolChoice: choice, prompt });
      // One call at most: generation stops the moment it is complete (as at a stop string: the turn then finishes).
      const gate = new SingleCallGate(request.parallelToolCalls === false && withTools);
      const push = (events: readonly ModelEvent[]) => {
        const passed = gate.read(events);
        if (gate.closed && !controller.signal.aborted) controller.abort(STOP_AT_FIRST_CALL);
        for (const event of passed) queue.push(event);
      };
      // Tokens' text is parsed off the path between one token and the next decode (see DeferredText).
      const deferred = new DeferredText((text) => push(reader.push(text)));
      const emit = (text: string) => {
        deferred.flush();
        push(reader.push(text));
      };
      const bos = model.tokens.bos !== null && model.tokens.shouldPrependBosToken ? [model.tokens.bos] : [];
      const promptTokens = [...bos, ...model.tokenize(prompt, true)];
      let generated = forcedPrefix;
      if (forcedPrefix) emit(forcedPrefix);
      // A forced call starts inside the body (the prompt ends with the marker, or with the call's opening).
      let phase: "free" | "body" = frames && isForced(choice) && forcedPrefix ? "body" : "free";
      let bodyNamed = typeof choice === "object" && frames ? choice.name : undefined;
      const stops = [...new Set([...protocol.stopSequences, ...template.turnEndMarkers])];
      let remaining = sampling.maxTokens;
      let reason: ModelFinishReason = "stop";
      // After a copied word, one token that cannot go on with it (a tiny model's bias, see LoadedLlama.wordEndBias): what
      // may close the word, or undefined when no word was just copied.
      let endWord: string | undefined;
      const completion = new LlamaCompletion({ contextSequence: input.sequence });
      /**
       * One sampled token and its text, not yet part of the answer (`sampled` false when none was: the model ended, or a
       * stop string or call marker came). Stopped once the token is sampled: node-llama-cpp's `maxTokens: 1` samples none.
       */
      const nextToken = async (tokens: Token[], bias?: TokenBias) => {
        const one = new AbortController();
        const sampled: Token[] = [];
        const options = samplingFor(
          sampling,
          (spent) => {
            remaining -= spent;
          },
          loaded.tokenBias,
        );
        const result = await completion.generateCompletionWithMeta(tokens, {
          ...options,
          ...(bias ? { tokenBias: bias } : {}),
          signal: AbortSignal.any([controller.signal, one.signal]),
          stopOnAbortSignal: true,
          maxTokens: remaining,
          customStopTriggers: [...(frames ? [frames.marker] : []), ...stops],
          onToken: (t: Token[]) => {
            options.onToken(t);
            sampled.push(...t);
            one.abort();
          },
        });
        const stopped = result.metadata.stopReason === "abort" || result.metadata.stopReason === "maxTokens";
        return { sampled: stopped && sampled.length > 0, text: model.detokenize(sampled, false) };
      };
      try {
        while (true) {
          // The limit was reached at a switch of phase (a call marker, the end of a call body): the turn is cut there.
          if (remaining <= 0) {
            reason = "length";
            break;
          }
          const tokens = [...promptTokens, ...model.tokenize(generated, true)];
          const common = {
            signal: controller.signal,
            stopOnAbortSignal: true,
            maxTokens: remaining,
            // A call body is held to its grammar, and so is an answer with a JSON format (answerGrammarOption below).
            ...samplingFor(
              sampling,
              (spent) => {
                remaining -= spent;
              },
              phase === "body" || sampling.answerGrammar !== undefined ? undefined : loaded.tokenBias,
            ),
            onTextChunk: (text: string) => {
              generated += text;
              deferred.add(text);
            },
          };
          if (phase === "body") {
            const grammar = await grammarFor(bodyNamed);
            const result = await completion.generateCompletionWithMeta(tokens, { ...common, grammar });
            bodyNamed = undefined;
            deferred.flush();
            if (controller.signal.aborted) break;
            if (result.metadata.stopReason === "maxTokens") {
              reason = "length";
              break;
            }
            phase = "free";
            continue;
          }
          if (endWord !== undefined) {
            // Right after a copied word: the model's next token, looked at before it is kept. When it would go on with
            // the word ("Australia/Hobart" + "_Harbour"), a token that cannot is taken instead (a tiny model's bias, see
            // LoadedLlama.wordEndBias); any other token is the model's own. A call marker or an end is left to the
            // generation below, which meets it again.
            const closer = endWord;
            endWord = undefined;
            let next = await nextToken(tokens);
            if (next.sampled && /^[\p{L}\p{N}_/]/u.test(next.text))
              next = await nextToken(tokens, await loaded.wordEndBias(closer));
            if (controller.signal.aborted) break;
            if (next.sampled && next.text) {
              generated += next.text;
              emit(next.text);
            }
            continue;
          }
          const answerStart = generated.length;
          const copiedTriggers = copied?.triggers(generated.trim() === "") ?? [];
          const result = await completion.generateCompletionWithMeta(tokens, {
            ...common,
            customStopTriggers: [...(frames ? [frames.marker] : []), ...stops, ...copiedTriggers],
            ...answerGrammarOption(sampling), // a JSON answer format (set only when no tool is offered)
          });
          deferred.flush();
          if (controller.signal.aborted) break;
          const meta = result.metadata;
          if (meta.stopReason === "maxTokens") reason = "length";
          const trigger =
            meta.stopReason === "customStopTrigger"
              ? meta.customStopTrigger
                  .map((t) => (typeof t === "string" ? t : model.detokenize([t], true)))
                  .join("")
              : undefined;
          if (trigger !== undefined && frames && trigger === frames.marker) {
            generated += trigger;
            emit(trigger);
            phase = "body";
            continue;
          }
          if (trigger !== undefined && copiedTriggers.includes(trigger)) {
            // The model began a word of the tool result: it is written out whole, and the model goes on after it. A bare
            // prefix met inside a word began nothing: the model goes on from it.
            const word = copied?.begin(trigger, generated.slice(answerStart));
            generated += trigger + (word?.rest ?? "");
            emit(trigger + (word?.rest ?? ""));
            endWord = word?.closer;
            continue;
          }
          break;
        }
        deferred.flush();
        if (request.signal.aborted) throw request.signal.reason;
        push(reader.end());
      } finally {
        deferred.dispose();
        completion.dispose({ disposeSequence: false });
      }
      reason = reader.finishReason(reason);
      // Usage as an OpenAI-compatible server reports it: the prompt as evaluated, the tokens sampled.
      const usage = { inputTokens: promptTokens.length, outputTokens: sampling.maxTokens - remaining };
      queue.push({ type: "finish", reason, usage });
    },
    (generation) => loaded.holdUntil(input.sequence, generation),
  );
}
