/**
 * Holds the text of generated tokens and hands it on from a timer, so whatever reads it — a protocol parser, the
 * consumers of the model's stream, an HTTP response — runs while node-llama-cpp evaluates the next token, not before.
 *
 * Why: node-llama-cpp dispatches each decode from `setImmediate`, after the current microtasks; everything done
 * synchronously in its callbacks, or in the microtasks they start, sits between one token and the next decode and is
 * added to every token's latency (measured on the tiny GGUF served over `/v1`: ~6% of the rate). A timer fires in the
 * event loop's next turn, after the decode went out, so the same work overlaps the evaluation on the other thread.
 * Text is never reordered: a caller flushes before it hands on anything else (a call, the end of the turn).
 */
export class DeferredText {
  #pending = "";
  #armed = false;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly deliver: (text: string) => void) {}

  add(text: string): void {
    if (!text) return;
    this.#pending += text;
    if (this.#armed) return;
    this.#armed = true;
    // One timer for the whole generation, re-armed (refresh) rather than re-created per token.
    if (this.#timer) this.#timer.refresh();
    else this.#timer = setTimeout(() => this.#fire(), 0);
  }

  /** Hands on whatever is held, now. */
  flush(): void {
    if (!this.#pending) return;
    const text = this.#pending;
    this.#pending = "";
    this.deliver(text);
  }

  /** Stops the timer; text still held is dropped (flush first to keep it). */
  dispose(): void {
    this.#pending = "";
    this.#armed = false;
    if (this.#timer) clearTimeout(this.#timer);
  }

  #fire(): void {
    this.#armed = false;
    this.flush();
  }
}
