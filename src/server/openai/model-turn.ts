import type { Tool } from "@modelcontextprotocol/server";
import type { AgentMessage } from "../../core/agent-message.js";
import type { ModelEvent, ResponseFormat, SamplingSettings, ToolChoice } from "../../core/language-model.js";
import { redactModelStream } from "../../tools/redact-model-stream.js";
import type { Redactor } from "../../tools/redact-secrets.js";
import type { ModelCatalog } from "../model-catalog.js";
import { type TurnOutput, TurnReader } from "./turn-reader.js";

/** A /v1 request of any of the three APIs, validated and converted to what a LanguageModel takes. */
export interface TurnRequest {
  model: string;
  messages: AgentMessage[];
  tools: Tool[];
  toolChoice: ToolChoice;
  parallelToolCalls: boolean;
  stream: boolean;
  maxTokens: number | undefined;
  /** temperature, top_p, seed, stop, penalties: undefined when the request sets none. */
  sampling: SamplingSettings | undefined;
  responseFormat: ResponseFormat | undefined;
}

/** A model turn under way: its outputs in order, then done. `close` stops the generation (safe to call twice). */
export interface ModelTurn {
  next(): Promise<IteratorResult<TurnOutput>>;
  close(): Promise<void>;
}

/**
 * Starts the model turn a request asks for and waits for the model's first event, so that everything that can be
 * refused — an unknown model, a full queue, a model that fails to load or start — throws before a response header goes
 * out (clients and proxies drop an error sent in-band after a 200: openai-compat notes §3.12). The turn then passes
 * through the server's redactor (every secret the model writes is replaced, across deltas too) and the TurnReader.
 * `signal` stops the generation (the client went away, the stream ended).
 */
export async function openModelTurn(input: {
  catalog: ModelCatalog;
  request: TurnRequest;
  signal: AbortSignal;
  redactor: Redactor | undefined;
  callIdPrefix: string;
}): Promise<ModelTurn> {
  const { request } = input;
  const model = await input.catalog.get(request.model);
  const raw = model
    .stream({
      messages: request.messages,
      tools: request.tools,
      toolChoice: request.toolChoice,
      ...(request.parallelToolCalls ? {} : { parallelToolCalls: false }), // true is also the unset default
      signal: input.signal,
      ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
      ...(request.sampling ? { sampling: request.sampling } : {}),
      ...(request.responseFormat ? { responseFormat: request.responseFormat } : {}),
    })
    [Symbol.asyncIterator]();
  let first: IteratorResult<ModelEvent>;
  try {
    first = await raw.next();
  } catch (error) {
    await raw.return?.().catch(() => {});
    throw error;
  }
  async function* events(): AsyncGenerator<ModelEvent> {
    for (let step = first; !step.done; step = await raw.next()) yield step.value;
  }
  const redacted = input.redactor ? redactModelStream(events(), input.redactor) : events();
  const reader = new TurnReader({
    toolChoice: request.toolChoice,
    parallelToolCalls: request.parallelToolCalls,
    callIdPrefix: input.callIdPrefix,
  });
  async function* outputs(): AsyncGenerator<TurnOutput> {
    try {
      for await (const event of redacted) {
        const output = reader.read(event);
        if (output) yield output;
      }
    } finally {
      await raw.return?.().catch(() => {});
    }
  }
  const iterator = outputs();
  let closed = false;
  return {
    next: () => iterator.next(),
    async close() {
      if (closed) return;
      closed = true;
      await iterator.return(undefined).catch(() => {});
      await raw.return?.().catch(() => {});
    },
  };
}
