import type { ModelTurn } from "./model-turn.js";
import type { TurnOutput } from "./turn-reader.js";

/** How an API writes a turn as Server-Sent Events. */
export interface WireEncoder {
  /** The SSE text (one or more events, each ending in a blank line) for one output. */
  write(output: TurnOutput): string;
  /** The SSE text after the turn's finish: OpenAI's `data: [DONE]`, or "" where the API has none. */
  end(): string;
  /** The SSE text that ends a stream whose turn failed after the 200 headers went out. */
  fail(error: unknown): string;
}

/**
 * Text produced within this window after the first chunk is sent in one write, as one delta. Every event costs the
 * client far more than the server — the openai client spends ~0.4 ms of CPU on each (fetch's web streams, its SSE
 * decoder, a JSON.parse) — and on the cores that generate, that is what paces a fast local model. Measured on the tiny
 * GGUF (bench:server-v1, ~1,200 tokens/s, 2 cores, median of 41 alternated pairs): a chunk per token 0.84×
 * node-llama-cpp's own rate; 8 ms 0.91×; 25 ms 0.95–0.96×. 25 ms is 40 updates a second — smooth to a reader — and a
 * model slower than 40 tokens/s (most local models on a CPU) still gets a chunk per token, each at most 25 ms late;
 * the first goes out at once.
 */
const COALESCE_MS = 25;

const encoder = new TextEncoder();

/**
 * A turn as a `text/event-stream` response, for every /v1 API: each output written by the API's encoder, text and
 * reasoning coalesced within a window, a failure after the headers written in the API's in-band error shape. A client
 * that goes away cancels the body, and `done` stops the generation.
 */
export function streamTurn(turn: ModelTurn, wire: WireEncoder, done: () => void): Response {
  let next: Promise<IteratorResult<TurnOutput>> | undefined;
  let finished = false;
  let sentFirst = false;
  const finish = async () => {
    if (finished) return;
    finished = true;
    done();
    await turn.close();
  };
  const body = new ReadableStream<Uint8Array>({
    async pull(stream) {
      let text = "";
      // Text or reasoning within the window, merged into one output: a client parses one event, not one per token.
      let held: Extract<TurnOutput, { kind: "text" | "reasoning" }> | undefined;
      const flushHeld = () => {
        if (!held) return "";
        const out = wire.write(held);
        held = undefined;
        return out;
      };
      // One timer per window, raced by every output inside it; an output still to come is kept for the next pull.
      let windowClosed: Promise<undefined> | undefined;
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        for (;;) {
          next ??= turn.next();
          const step = windowClosed ? await Promise.race([next, windowClosed]) : await next;
          if (step === undefined) break; // the window closed first
          next = undefined;
          if (step.done) {
            clearTimeout(timer);
            text += flushHeld();
            stream.enqueue(encoder.encode(text + wire.end()));
            stream.close();
            await finish();
            return;
          }
          const output = step.value;
          if ((output.kind === "text" || output.kind === "reasoning") && sentFirst) {
            if (held?.kind === output.kind) held = { kind: output.kind, text: held.text + output.text };
            else {
              text += flushHeld();
              held = output;
            }
          } else {
            text += flushHeld();
            text += wire.write(output);
          }
          if (!text && !held) continue; // a pull must enqueue something, or the stream would wait forever
          if (!sentFirst) break; // the first event goes at once: time to first token is not delayed
          windowClosed ??= new Promise<undefined>((resolve) => {
            timer = setTimeout(() => resolve(undefined), COALESCE_MS);
          });
        }
        clearTimeout(timer);
        text += flushHeld();
        sentFirst = true;
        if (text) stream.enqueue(encoder.encode(text));
      } catch (error) {
        clearTimeout(timer);
        text += flushHeld();
        stream.enqueue(encoder.encode(text + wire.fail(error)));
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
