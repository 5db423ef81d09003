import { jsonrepair } from "jsonrepair";
import type { LanguageModel, ModelFinishReason, ModelRequest, ModelUsage } from "../core/language-model.js";
import type { ParserEvent, ToolCallParser } from "../protocols/types.js";
import type { TextCallProtocol } from "./text-protocol.js";

export interface CollectedCall {
  id: string;
  name: string;
  /** Parsed arguments; empty when `error` is set. */
  arguments: Record<string, unknown>;
  /** Why the call could not be read (bad JSON, not an object, malformed markup). */
  error?: string;
}

export interface CollectedTurn {
  text: string;
  reasoning: string;
  calls: CollectedCall[];
  /** Protocol parse errors that belong to no call. */
  parseErrors: string[];
  finishReason: ModelFinishReason;
  usage?: ModelUsage;
}

export interface CollectOptions {
  protocol?: TextCallProtocol;
  /** Called for every streamed piece, already in loop terms. */
  onText(text: string): void;
  onReasoning(text: string): void;
  onCallStart(id: string, name: string): void;
  onCallArgsDelta(id: string, text: string): void;
  /** Fresh call ids: the model's own ids are kept when given and unused. */
  newId(preferred?: string): string;
}

function readArguments(raw: unknown): { value: Record<string, unknown> } | { error: string } {
  let value = raw;
  if (typeof raw === "string") {
    if (raw.trim() === "") return { value: {} };
    try {
      value = JSON.parse(raw);
    } catch {
      try {
        value = JSON.parse(jsonrepair(raw));
      } catch (error) {
        return { error: `the arguments are not valid JSON (${(error as Error).message})` };
      }
    }
  }
  if (value === undefined || value === null) return { value: {} };
  if (typeof value !== "object" || Array.isArray(value)) {
    return { error: 'the arguments must be one JSON object, e.g. {"name": "value"}' };
  }
  return { value: value as Record<string, unknown> };
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
 * Drive one model turn to its end and gather what it said. Text goes through the run's protocol parser when there is
 * one, so text-only models and native calls end up in the same shape. Honours the request's signal even when the
 * model does not (the iterator is abandoned and the abort reason is thrown).
 */
export async function collectModelTurn(
  model: LanguageModel,
  request: ModelRequest,
  options: CollectOptions,
): Promise<CollectedTurn> {
  const turn: CollectedTurn = { text: "", reasoning: "", calls: [], parseErrors: [], finishReason: "stop" };
  const open = new Map<string, string>();
  let lastNativeId: string | undefined;
  const parserIds = new Map<number, string>();
  const parser: ToolCallParser | undefined = options.protocol?.createParser({
    tools: request.tools,
    createId: () => options.newId(),
  });

  const onParserEvents = (events: ParserEvent[]) => {
    for (const event of events) {
      switch (event.type) {
        case "content":
          turn.text += event.text;
          options.onText(event.text);
          break;
        case "reasoning":
          turn.reasoning += event.text;
          options.onReasoning(event.text);
          break;
        case "call-start":
          parserIds.set(event.index, event.id);
          options.onCallStart(event.id, event.name);
          break;
        case "call-args-delta": {
          const id = parserIds.get(event.index);
          if (id) options.onCallArgsDelta(id, event.text);
          break;
        }
        case "call-end": {
          const id = parserIds.get(event.index) ?? event.call.id;
          turn.calls.push({ id, name: event.call.name, arguments: event.call.arguments });
          break;
        }
        case "parse-error": {
          const id = event.index === undefined ? undefined : parserIds.get(event.index);
          if (id) turn.calls.push({ id, name: "", arguments: {}, error: event.message });
          else turn.parseErrors.push(event.message);
          break;
        }
        case "truncated":
          turn.parseErrors.push(event.message);
          break;
      }
    }
  };

  const iterator = model.stream(request)[Symbol.asyncIterator]();
  const aborted = abortPromise(request.signal);
  try {
    for (;;) {
      const next = await Promise.race([iterator.next(), aborted.promise]);
      if (next.done) break;
      const event = next.value;
      switch (event.type) {
        case "text-delta":
          if (parser) onParserEvents(parser.push(event.text));
          else {
            turn.text += event.text;
            options.onText(event.text);
          }
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
          const read = readArguments(event.arguments);
          turn.calls.push(
            "error" in read
              ? { id, name: event.name, arguments: {}, error: read.error }
              : { id, name: event.name, arguments: read.value },
          );
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
  if (parser) onParserEvents(parser.end());
  turn.text = turn.text.trim();
  return turn;
}
