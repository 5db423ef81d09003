import type { Context } from "hono";
import type { ModelEvent } from "../../core/language-model.js";
import type { ModelCatalog } from "../model-catalog.js";
import { buildChatCompletion, ChatChunkWriter } from "./chat-completion-writer.js";
import { type ChatOutput, ChatTurnReader } from "./chat-turn-reader.js";
import { invalidRequest, openAIErrorResponse, toOpenAIApiError } from "./openai-api-error.js";
import { parseChatRequest } from "./parse-chat-request.js";

const encoder = new TextEncoder();

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
          ...(request.parallelToolCalls ? {} : { parallelToolCalls: false }), // true is also the unset default
          signal: controller.signal,
          ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
          ...(request.sampling ? { sampling: request.sampling } : {}),
          ...(request.responseFormat ? { responseFormat: request.responseFormat } : {}),
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

/**
 * Chunks produced within this window after the first are sent in one write, as one delta. Every chunk costs the
 * client far more than the server — the openai client spends ~0.4 ms of CPU on each (fetch's web streams, its SSE
 * decoder, a JSON.parse) — and on the cores that generate, that is what paces a fast local model. Measured on the tiny
 * GGUF (bench:server-v1, ~1,200 tokens/s, 2 cores, median of 41 alternated pairs): a chunk per token 0.84×
 * node-llama-cpp's own rate; 8 ms 0.91×; 25 ms 0.95–0.96×. 25 ms is 40 updates a second — smooth to a reader — and a
 * model slower than 40 tokens/s (most local models on a CPU) still gets a chunk per token, each at most 25 ms late;
 * the first goes out at once.
 */
const COALESCE_MS = 25;

function streamResponse(
  iterator: AsyncIterator<ModelEvent>,
  first: IteratorResult<ModelEvent>,
  reader: ChatTurnReader,
  writer: ChatChunkWriter,
  done: () => void,
): Response {
  let next: Promise<IteratorResult<ModelEvent>> | undefined = Promise.resolve(first);
  let finished = false;
  let sentFirst = false;
  const finish = async () => {
    if (finished) return;
    finished = true;
    done();
    await iterator.return?.().catch(() => {});
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(stream) {
      let text = "";
      let heldText = "";
      const flushText = () => {
        if (!heldText) return "";
        const chunks = writer.write({ kind: "text", text: heldText });
        heldText = "";
        return chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("");
      };
      // One timer per window, raced by every event inside it; an event still to come is kept for the next pull.
      let windowClosed: Promise<undefined> | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        for (;;) {
          next ??= iterator.next();
          const step = windowClosed ? await Promise.race([next, windowClosed]) : await next;
          if (step === undefined) break; // the window closed first
          next = undefined;
          if (step.done) {
            clearTimeout(timer);
            text += flushText();
            stream.enqueue(encoder.encode(`${text}data: [DONE]\n\n`));
            stream.close();
            await finish();
            return;
          }
          const output = reader.read(step.value);
          if (!output) continue;
          if (output.kind === "text" && sentFirst) {
            // Text within the window goes out as one delta: a client parses one chunk, not one per token.
            heldText += output.text;
          } else {
            text += flushText();
            for (const chunk of writer.write(output)) text += `data: ${JSON.stringify(chunk)}\n\n`;
          }
          if (!text && !heldText) continue; // a pull must enqueue something, or the stream would wait forever
          if (!sentFirst) break; // the first chunk goes at once: time to first token is not delayed
          windowClosed ??= new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), COALESCE_MS);
          });
        }
        clearTimeout(timer);
        text += flushText();
        sentFirst = true;
        if (text) stream.enqueue(encoder.encode(text));
      } catch (error) {
        clearTimeout(timer);
        text += flushText();
        stream.enqueue(encoder.encode(`${text}data: ${JSON.stringify(toOpenAIApiError(error).body())}\n\n`));
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
