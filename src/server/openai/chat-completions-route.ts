import type { Context } from "hono";
import type { ModelEvent } from "../../core/language-model.js";
import type { ModelCatalog } from "../model-catalog.js";
import { buildChatCompletion, ChatChunkWriter } from "./chat-completion-writer.js";
import { type ChatOutput, ChatTurnReader } from "./chat-turn-reader.js";
import { invalidRequest, openAIErrorResponse, toOpenAIApiError } from "./openai-api-error.js";
import { parseChatRequest } from "./parse-chat-request.js";

const encoder = new TextEncoder();
const sse = (data: string) => encoder.encode(`data: ${data}\n\n`);

/**
 * `POST /v1/chat/completions`. Everything that can be refused is refused before the 200 headers go out — the body, the
 * model name, a full queue, and the model's first event (a model that fails to load or start answers 500 with its
 * message) — because clients and proxies drop an error sent in-band after a 200 (openai-compat notes §3.12). After
 * that, a failure ends the stream with a `data: {"error": …}` event, which the openai client raises as an APIError.
 * A client that goes away stops the generation, and its context sequence is free again at once.
 */
export function chatCompletionsHandler(catalog: ModelCatalog) {
  return async (c: Context): Promise<Response> => {
    const controller = new AbortController();
    const clientGone = () => controller.abort(new Error("the client closed the connection"));
    c.req.raw.signal.addEventListener("abort", clientGone, { once: true });
    let iterator: AsyncIterator<ModelEvent> | undefined;
    try {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        throw invalidRequest("The request body is not valid JSON.");
      }
      const request = parseChatRequest(body);
      const model = await catalog.get(request.model);
      iterator = model
        .stream({
          messages: request.messages,
          tools: request.tools,
          toolChoice: request.toolChoice,
          signal: controller.signal,
          ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
        })
        [Symbol.asyncIterator]();
      const first = await iterator.next();
      const reader = new ChatTurnReader(request);
      if (!request.stream) {
        const outputs: ChatOutput[] = [];
        for (let step = first; !step.done; step = await iterator.next()) {
          const output = reader.read(step.value);
          if (output) outputs.push(output);
        }
        return c.json(buildChatCompletion(request.model, outputs));
      }
      return streamResponse(
        iterator,
        first,
        reader,
        new ChatChunkWriter(request.model, request.includeUsage),
        () => {
          c.req.raw.signal.removeEventListener("abort", clientGone);
          controller.abort(new Error("the response stream ended"));
        },
      );
    } catch (error) {
      c.req.raw.signal.removeEventListener("abort", clientGone);
      controller.abort(error);
      await iterator?.return?.().catch(() => {});
      return openAIErrorResponse(toOpenAIApiError(error));
    }
  };
}

function streamResponse(
  iterator: AsyncIterator<ModelEvent>,
  first: IteratorResult<ModelEvent>,
  reader: ChatTurnReader,
  writer: ChatChunkWriter,
  done: () => void,
): Response {
  let pending: IteratorResult<ModelEvent> | undefined = first;
  let finished = false;
  const finish = async () => {
    if (finished) return;
    finished = true;
    done();
    await iterator.return?.().catch(() => {});
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(stream) {
      try {
        // One model event per pull, written as soon as it arrives: chunks are never held back.
        for (;;) {
          const step = pending ?? (await iterator.next());
          pending = undefined;
          if (step.done) {
            stream.enqueue(sse("[DONE]"));
            stream.close();
            await finish();
            return;
          }
          const output = reader.read(step.value);
          if (!output) continue;
          for (const chunk of writer.write(output)) stream.enqueue(sse(JSON.stringify(chunk)));
          return;
        }
      } catch (error) {
        stream.enqueue(sse(JSON.stringify(toOpenAIApiError(error).body())));
        stream.close();
        await finish();
      }
    },
    async cancel() {
      await finish();
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      "x-accel-buffering": "no",
    },
  });
}
