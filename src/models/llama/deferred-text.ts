/**
 * Holds the text of generated tokens and hands it on a moment later, so whatever reads it — a protocol parser, the
 * consumers of the model's stream, an HTTP response — runs while node-llama-cpp evaluates the next token, not before.
 *
 * Why: node-llama-cpp dispatches each decode from `setImmediate`, after the current microtasks; everything done
 * synchronously in its callbacks, or in the microtasks they start, sits between one token and the next decode and is
 * added to every token's latency. An immediate queued from an immediate runs in the event loop's next turn — after
 * the decode went out, before its result can be back (the loop does not wait for I/O while immediates are pending) —
 * so the same work overlaps the evaluation on the other thread, and no timer wakes the loop up in between.
 * Text is never reordered: a caller flushes before it hands on anything else (a call, the end of the turn).
 */
export class DeferredText {
  #pending = "";
  #armed = false;
  #disposed = false;

  constructor(private readonly deliver: (text: string) => void) {}

  add(text: string): void {
    if (!text) return;
    this.#pending += text;
    if (this.#armed) return;
    this.#armed = true;
    setImmediate(() => setImmediate(() => this.#fire()));
  }

  /** Hands on whatever is held, now. */
  flush(): void {
    if (!this.#pending) return;
    const text = this.#pending;
    this.#pending = "";
    this.deliver(text);
  }

  /** Text still held is dropped (flush first to keep it), and nothing is handed on after this. */
  dispose(): void {
    this.#pending = "";
    this.#disposed = true;
  }

  #fire(): void {
    this.#armed = false;
    if (!this.#disposed) this.flush();
  }
}
