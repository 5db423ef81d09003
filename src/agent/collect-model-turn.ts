import type { LanguageModel, ModelFinishReason, ModelRequest, ModelUsage } from "../core/language-model.js";
import { decodeCallArguments } from "../protocols/decode-call-arguments.js";

export interface CollectedCall {
  id: string;
  name: string;
  /** Parsed arguments; empty when `error` is set. */
  arguments: Record<string, unknown>;
  /** Why the call could not be read (bad JSON, not an object, malformed markup). */
  error?: string;
  /** Its text had to be mended to be read (the backend's parser or jsonrepair). */
  repaired?: boolean;
}

export interface CollectedTurn {
  text: string;
  reasoning: string;
  calls: CollectedCall[];
  /** Unreadable call markup that belongs to no call (the model's `call-error` events without an id). */
  parseErrors: string[];
  finishReason: ModelFinishReason;
  usage?: ModelUsage;
}

export interface CollectOptions {
  /** Called for every streamed piece, already in loop terms. */
  onText(text: string): void;
  onReasoning(text: string): void;
  onCallStart(id: string, name: string): void;
  onCallArgsDelta(id: string, text: string): void;
  /** Fresh call ids: the model's own ids are kept when given and unused. */
  newId(preferred?: string): string;
}

function abortPromise(signal: AbortSignal): { promise: Promise<never>; dispose(): void } {
  let onAbort: (() => void) | undefined;
  const promise = new Promise<never>((_, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
  });
  promise.catch(() => {});
  return { promise, dispose: () => onAbort && signal.removeEventListener("abort", onAbort) };
}

/**
 * Drive one model turn to its end and gather what it said: text, reasoning, calls (their arguments decoded) and
 * unreadable calls. Every backend — native or text-protocol — streams the same events, so this is the one path from
 * a model's output to calls. Honours the request's signal even when the model does not (the iterator is abandoned
 * and the abort reason is thrown).
 */
export async function collectModelTurn(
  model: LanguageModel,
  request: ModelRequest,
  options: CollectOptions,
): Promise<CollectedTurn> {
  const turn: CollectedTurn = { text: "", reasoning: "", calls: [], parseErrors: [], finishReason: "stop" };
  const open = new Map<string, string>();
  let lastNativeId: string | undefined;
  const iterator = model.stream(request)[Symbol.asyncIterator]();
  const aborted = abortPromise(request.signal);
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted.promise]);
      if (next.done) break;
      const event = next.value;
      switch (event.type) {
        case "text-delta":
          turn.text += event.text;
          options.onText(event.text);
          break;
        case "reasoning-delta":
          turn.reasoning += event.text;
          options.onReasoning(event.text);
          break;
        case "call-start": {
          const id = options.newId(event.id);
          open.set(event.id ?? id, id);
          lastNativeId = id;
          options.onCallStart(id, event.name);
          break;
        }
        case "call-args-delta": {
          const id = (event.id !== undefined ? open.get(event.id) : undefined) ?? lastNativeId;
          if (id) options.onCallArgsDelta(id, event.text);
          break;
        }
        case "call-end": {
          let id = event.id !== undefined ? open.get(event.id) : lastNativeId;
          if (id === undefined || turn.calls.some((c) => c.id === id)) {
            id = options.newId(event.id);
            options.onCallStart(id, event.name);
          }
          if (event.id !== undefined) open.delete(event.id);
          lastNativeId = undefined;
          const decoded = decodeCallArguments(event.arguments);
          turn.calls.push(
            decoded.ok
              ? {
                  id,
                  name: event.name,
                  arguments: decoded.value,
                  ...(event.repaired || decoded.repaired ? { repaired: true } : {}),
                }
              : { id, name: event.name, arguments: {}, error: decoded.error },
          );
          break;
        }
        case "call-error": {
          const id = event.id !== undefined ? open.get(event.id) : undefined;
          if (event.id !== undefined) open.delete(event.id);
          if (id !== undefined && !turn.calls.some((c) => c.id === id)) {
            lastNativeId = undefined;
            turn.calls.push({ id, name: event.name ?? "", arguments: {}, error: event.message });
          } else turn.parseErrors.push(event.message);
          break;
        }
        case "finish":
          turn.finishReason = event.reason;
          if (event.usage) turn.usage = event.usage;
          break;
      }
    }
  } catch (error) {
    // Let a backend release its connection; do not wait for a backend that ignores the signal.
    void Promise.resolve(iterator.return?.()).catch(() => {});
    throw error;
  } finally {
    aborted.dispose();
  }
  turn.text = turn.text.trim();
  return turn;
}
