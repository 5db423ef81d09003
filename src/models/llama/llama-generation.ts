import type { Tool } from "@modelcontextprotocol/server";
import type { Token } from "node-llama-cpp";
import type { ModelEvent, ModelRequest, ToolChoice } from "../../core/language-model.js";
import { ModelRequestError } from "../model-errors.js";
import { EventQueue } from "./event-queue.js";
import { guardNativeRejections } from "./guard-native-rejections.js";
import type { LoadedLlama } from "./llama-runtime.js";

/** The abort reason used when a call (not the user) stops generation. */
export const STOP_FOR_CALL = new Error("tool call handed to the loop");

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
  maxTokens: number;
}

/** node-llama-cpp's sampling options for one call of a generation, counting the tokens it produces into `spent`. */
export function samplingFor(
  loaded: LoadedLlama,
  sampling: Sampling,
  spent: (tokens: number) => void,
): {
  temperature: number;
  seed?: number;
  tokenBias?: NonNullable<LoadedLlama["tokenBias"]>;
  onToken: (tokens: Token[]) => void;
} {
  return {
    temperature: sampling.temperature,
    ...(sampling.seed !== undefined ? { seed: sampling.seed } : {}),
    ...(loaded.tokenBias ? { tokenBias: loaded.tokenBias } : {}),
    onToken: (tokens: Token[]) => spent(tokens.length),
  };
}

/**
 * Runs `generate` and streams what it pushes. node-llama-cpp failures become a ModelRequestError, never a crash;
 * an abandoned stream (the loop cancelled it) stops the generation and waits for it, so the context sequence is free
 * when the caller releases it.
 */
export async function* pumpGeneration(
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
    controller.abort(request.signal.reason ?? new Error("stream closed"));
    await done;
    request.signal.removeEventListener("abort", onAbort);
  }
}

function llamaError(error: unknown): Error {
  if (error instanceof ModelRequestError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ModelRequestError(
    `node-llama-cpp failed while generating: ${message}. The run was stopped; the process is fine. If it repeats, try mode "text" or another tool-call protocol.`,
  );
}
