import type { ModelEvent, ModelRequest } from "../core/language-model.js";
import { StopSequenceFilter } from "./completions/stop-sequence-filter.js";

/**
 * Applies a request's stop strings to what the user sees: the text deltas, after a backend's protocol parser has
 * taken the tool calls out. A stop string inside a call's markup or arguments (`"}"`, `"\n"`, a prefix of the call
 * marker) therefore never cuts a call; in the text, the answer ends before the stop string, and whatever the backend
 * still produces is dropped. The finish event keeps the backend's usage and says `stop` (or `tool-calls` when a call
 * went out before the stop), naming the stop string (`stopSequence`) when there was no call.
 *
 * Feed every event to `read`; once `stopped` turns true, call the backend's way of ending generation early (the
 * caller's `halt`) and keep reading until its finish event.
 */
export class StopAtVisibleText {
  readonly #filter: StopSequenceFilter;
  #calls = 0;

  constructor(stops: readonly string[]) {
    this.#filter = new StopSequenceFilter(stops);
  }

  get stopped(): boolean {
    return this.#filter.stopped;
  }

  /** The events to pass on for one event of the backend, in order. */
  read(event: ModelEvent): ModelEvent[] {
    if (this.stopped) {
      if (event.type !== "finish") return [];
      if (this.#calls > 0) return [{ ...event, reason: "tool-calls" }];
      const matched = this.#filter.matched;
      return [{ ...event, reason: "stop", ...(matched === undefined ? {} : { stopSequence: matched }) }];
    }
    switch (event.type) {
      case "text-delta": {
        const text = this.#filter.push(event.text);
        return text ? [{ type: "text-delta", text }] : [];
      }
      case "reasoning-delta":
      case "call-args-delta":
        return [event];
      default: {
        // A call or the end: the text before it is complete, so a held-back tail that might have begun a stop string
        // goes out first (a stop string never spans a call).
        const tail = this.#filter.end();
        if (event.type === "call-end") this.#calls += 1;
        return tail ? [{ type: "text-delta", text: tail }, event] : [event];
      }
    }
  }
}

/** The request's stop strings, when it has any. */
export function requestStops(request: Pick<ModelRequest, "sampling">): readonly string[] {
  return request.sampling?.stop?.filter((s) => s !== "") ?? [];
}

/**
 * `events` with the stop strings applied to the visible text (see StopAtVisibleText). When a stop string is reached,
 * `halt` is called (the backend stops generating and still finishes, with its usage); without `halt` the backend's
 * stream is closed at once and the turn finishes here, without usage. Without stop strings, `events` itself: no
 * generator in between, which would cost every event of every turn a hop.
 */
export function stopAtVisibleText(
  events: AsyncIterable<ModelEvent>,
  stops: readonly string[],
  halt?: () => void,
): AsyncIterable<ModelEvent> {
  return stops.length === 0 ? events : applyStops(events, stops, halt);
}

async function* applyStops(
  events: AsyncIterable<ModelEvent>,
  stops: readonly string[],
  halt: (() => void) | undefined,
): AsyncGenerator<ModelEvent> {
  const stop = new StopAtVisibleText(stops);
  let halted = false;
  for await (const event of events) {
    yield* stop.read(event);
    if (!stop.stopped || halted) continue;
    if (!halt) {
      yield* stop.read({ type: "finish", reason: "stop" });
      return; // closes the backend's stream: it stops generating
    }
    halted = true;
    halt();
  }
}
