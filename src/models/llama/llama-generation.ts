import type { Tool } from "@modelcontextprotocol/server";
import type { LlamaGrammar, Token, TokenBias } from "node-llama-cpp";
import type { ModelEvent, ModelRequest, ToolChoice } from "../../core/language-model.js";
import { ModelRequestError } from "../model-errors.js";
import { requestStops, stopAtVisibleText } from "../stop-at-visible-text.js";
import { EventQueue } from "./event-queue.js";
import { guardNativeRejections } from "./guard-native-rejections.js";

/** The abort reason used when a call (not the user) stops generation. */
export const STOP_FOR_CALL = new Error("tool call handed to the loop");
/** The abort reason used when the answer's text reached one of the request's stop strings. */
export const STOP_FOR_STOP_STRING = new Error("stop string reached");

export const isForced = (choice: ToolChoice): boolean => choice === "required" || typeof choice === "object";

/** The tools a turn may call: none for `none`, only the named one for `{name}` (all, if it is not offered). */
export function offeredTools(tools: readonly Tool[], choice: ToolChoice): readonly Tool[] {
  if (choice === "none") return [];
  if (typeof choice === "object") {
    const named = tools.filter((t) => t.name === choice.name);
    return named.length ? named : tools;
  }
  return tools;
}

/** What every generation of a model shares, whichever mode: sampling and the token budget's bookkeeping. */
export interface Sampling {
  temperature: number;
  seed?: number;
  topP?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  maxTokens: number;
  /**
   * The grammar of the answer (a JSON `responseFormat`). Set only for turns that offer no tools: node-llama-cpp
   * cannot combine a grammar with function calling, and text mode's call bodies have their own grammar.
   */
  answerGrammar?: LlamaGrammar;
}

/**
 * node-llama-cpp's sampling options for one call of a generation, counting the tokens it produces into `spent`.
 * `tokenBias`: this generation's (LoadedLlama.tokenBias, or one made from it). A generation held to a grammar as a
 * whole (a text-mode call body, a JSON answer) gets none: the grammar already decides what may be written, and a
 * tiny model's ban on raw high bytes beside it can leave no token at all — a copied "m³" or "°C" is written only with
 * byte tokens, and when the grammar allows nothing else node-llama-cpp's sampling never returns (no token, no error,
 * the abort signal unheard).
 */
export function samplingFor(
  sampling: Sampling,
  spent: (tokens: number) => void,
  tokenBias: TokenBias | undefined,
): {
  temperature: number;
  seed?: number;
  topP?: number;
  repeatPenalty?: { penalizeNewLine: boolean; presencePenalty?: number; frequencyPenalty?: number };
  tokenBias?: TokenBias;
  onToken: (tokens: Token[]) => void;
} {
  const { presencePenalty, frequencyPenalty } = sampling;
  const penalties = presencePenalty !== undefined || frequencyPenalty !== undefined;
  return {
    temperature: sampling.temperature,
    ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
    ...(sampling.topP !== undefined ? { topP: sampling.topP } : {}),
    // As OpenAI's penalties, they count every token, newlines too (node-llama-cpp leaves newlines out by default);
    // its other repeat-penalty defaults (the last 64 tokens, penalty 1.1) stay as they are.
    ...(penalties
      ? {
          repeatPenalty: {
            penalizeNewLine: true,
            ...(presencePenalty !== undefined ? { presencePenalty } : {}),
            ...(frequencyPenalty !== undefined ? { frequencyPenalty } : {}),
          },
        }
      : {}),

    ...(tokenBias ? { tokenBias } : {}),
    onToken: (tokens: Token[]) => spent(tokens.length),
  };
}

/** The answer's grammar as a generation option, when the request's JSON format set one. */
export function answerGrammarOption(sampling: Sampling): { grammar?: LlamaGrammar } {
  return sampling.answerGrammar ? { grammar: sampling.answerGrammar } : {};
}

/** How long a generation whose sampling failed is given to end before it is taken for stuck. */
const STUCK_AFTER_MS = 2_000;

/**
 * Runs `generate` and streams what it pushes. node-llama-cpp failures become a ModelRequestError, never a crash;
 * an abandoned stream (the loop cancelled it) stops the generation and waits for it, so the context sequence is free
 * when the caller releases it. The request's stop strings are applied here to the visible text, after the turn took
 * calls out (StopAtVisibleText): reaching one stops the generation, which then finishes normally with its usage.
 *
 * When sampling fails inside node-llama-cpp (guardNativeRejections hears it: "Unexpected empty grammar stack" when
 * nothing the grammar allows may be sampled), its generation may never settle, nor heed its abort signal. The stream
 * then fails at once with the error, and a generation still running `STUCK_AFTER_MS` later is left behind:
 * `onStuck` gets it, to keep its context sequence out of use until it ends (LoadedLlama.holdUntil).
 */
export async function* pumpGeneration(
  request: ModelRequest,
  generate: (queue: EventQueue<ModelEvent>, controller: AbortController) => Promise<void>,
  onStuck: (generation: Promise<void>) => void,
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
      queue.fail(llamaError(error));
    },
    () => generate(queue, controller),
  ).then(
    // After a failure the queue has failed already (above): closing it changes nothing.
    () => queue.close(),
    (error: unknown) =>
      queue.fail(request.signal.aborted ? request.signal.reason : llamaError(failure ?? error)),
  );
  try {
    yield* stopAtVisibleText(queue, requestStops(request), () => controller.abort(STOP_FOR_STOP_STRING));
  } finally {
    controller.abort(request.signal.reason ?? new Error("stream closed"));
    if (failure === undefined || (await settlesWithin(done, STUCK_AFTER_MS))) await done;
    else onStuck(done);
    request.signal.removeEventListener("abort", onAbort);
  }
}

/** Whether `promise` settles within `ms`. */
async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

function llamaError(error: unknown): Error {
  if (error instanceof ModelRequestError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ModelRequestError(
    `node-llama-cpp failed while generating: ${message}. The run was stopped; the process is fine. If it repeats, try mode "text" or another tool-call protocol.`,
  );
}
