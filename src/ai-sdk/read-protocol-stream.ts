import type { LanguageModelV3StreamPart, SharedV3Warning } from "@ai-sdk/provider";
import { type ProtocolOutputOptions, ProtocolOutputReader } from "./protocol-output-reader.js";
import { toFinishReason } from "./stream-part-writer.js";

type Part = LanguageModelV3StreamPart;
type FinishPart = Extract<Part, { type: "finish" }>;

const NOT_YET = Symbol("not yet");

/** The event loop's next turn (`setImmediate` where there is one). */
const nextTurn: (fn: () => void) => void = globalThis.setImmediate ?? ((fn) => setTimeout(fn, 0));

/** A batch this large goes out without waiting for the turn (a model that writes faster than it is read). */
const MAX_BATCH = 256;

/** Deltas of one block that arrived together go out as one part (text streams in pieces of a few characters). */
function coalesce(queue: Part[], part: Part): void {
  const last = queue.at(-1);
  if (
    last !== undefined &&
    last.type === part.type &&
    (part.type === "text-delta" || part.type === "reasoning-delta" || part.type === "tool-input-delta") &&
    (last as typeof part).id === part.id
  ) {
    // Both are the reader's own parts, made for this queue: joined in place.
    (last as typeof part).delta += part.delta;
  } else queue.push(part);
}

const UNKNOWN_USAGE: FinishPart["usage"] = {
  inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: undefined, text: undefined, reasoning: undefined },
};

/**
 * An AI SDK model's stream with its text read through a protocol (`ProtocolOutputReader`). The model's own text
 * blocks give way to the reader's (ids of its own, a new block after each call); everything else — provider reasoning,
 * sources, files, raw chunks, metadata, errors — passes as it came, `warnings` join the `stream-start`. The finish
 * says `tool-calls` when calls came out of the text. When a stop string or the one call allowed ends the output
 * early, the model's stream is cancelled (its usage is then unknown) and the turn finishes here.
 *
 * Pull-based rather than a TransformStream, and what has already arrived when the consumer asks goes out at once,
 * deltas of a block joined: a model streaming a few characters per part costs one consumer read per batch instead of
 * one per part, and nothing waits for more input than there is.
 */
export function readProtocolStream(
  source: ReadableStream<Part>,
  options: ProtocolOutputOptions & { warnings: readonly SharedV3Warning[] },
): ReadableStream<Part> {
  const input = source.getReader();
  let queue: Part[] = [];
  const output = new ProtocolOutputReader(options, (part) => coalesce(queue, part));
  let pending: ReturnType<typeof input.read> | undefined;
  let closed = false;

  const finish = (part: FinishPart) => {
    output.end();
    queue.push(
      output.calls > 0
        ? { ...part, finishReason: toFinishReason("tool-calls", part.finishReason.raw) }
        : part,
    );
    closed = true;
  };
  const take = (part: Part) => {
    switch (part.type) {
      case "text-delta":
        output.text(part.delta);
        if (output.done) {
          finish({ type: "finish", finishReason: toFinishReason("stop"), usage: UNKNOWN_USAGE });
          void input.cancel().catch(() => {});
        }
        return;
      case "text-start":
      case "text-end":
        return;
      case "stream-start":
        queue.push({ ...part, warnings: [...part.warnings, ...options.warnings] });
        return;
      case "finish":
        finish(part);
        return;
      default:
        queue.push(part);
    }
  };

  return new ReadableStream<Part>(
    {
      async pull(controller) {
        // Once something is ready to go, read on only what arrives before the event loop turns: one wake-up per
        // batch, handed to whichever read is waiting (racing every read against it would pile up reactions on it).
        let wake: ((value: typeof NOT_YET) => void) | undefined;
        let turned = false;
        while (!closed && queue.length < MAX_BATCH) {
          const read = (pending ??= input.read());
          if (queue.length > 0 && !turned && wake === undefined) {
            wake = () => {};
            nextTurn(() => {
              turned = true;
              wake?.(NOT_YET);
            });
          }
          if (turned) break;
          const next =
            wake === undefined
              ? await read
              : await new Promise<Awaited<typeof read> | typeof NOT_YET>((resolve, reject) => {
                  wake = resolve;
                  read.then(resolve, reject);
                });
          if (next === NOT_YET) break;
          pending = undefined;
          if (next.done) {
            // The model's stream ended without a finish part: end what is open all the same.
            output.end();
            closed = true;
          } else take(next.value);
        }
        const ready = queue;
        queue = [];
        for (const part of ready) controller.enqueue(part);
        if (closed) controller.close();
      },
      cancel(reason) {
        return input.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
}
