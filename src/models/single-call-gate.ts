import type { ModelEvent } from "../core/language-model.js";

/**
 * Lets a turn's events through up to the end of its first call, for a request with `parallelToolCalls: false`: the
 * backend stops generating once `closed`, and whatever the text held after that call (the opening of a second one, cut
 * off by the stop) never reaches the loop as a call or a cut-off call error. `finish` always passes.
 */
export class SingleCallGate {
  readonly #enabled: boolean;
  /** The first call has ended (readable or not): generation can stop. */
  closed = false;

  constructor(enabled: boolean) {
    this.#enabled = enabled;
  }

  read(events: readonly ModelEvent[]): ModelEvent[] {
    if (!this.#enabled) return [...events];
    const out: ModelEvent[] = [];
    for (const event of events) {
      if (event.type === "finish") out.push(event);
      else if (!this.closed) {
        out.push(event);
        if (event.type === "call-end" || event.type === "call-error") this.closed = true;
      }
    }
    return out;
  }
}
