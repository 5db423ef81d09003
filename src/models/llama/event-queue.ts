/**
 * A push → pull bridge from node-llama-cpp's callbacks to an async iterator. `drained()` resolves once the consumer
 * has taken everything pushed so far and asks for more — i.e. it has fully handled those events.
 */
export class EventQueue<T> {
  readonly #items: T[] = [];
  #wake: (() => void) | undefined;
  #drained: (() => void)[] = [];
  #closed = false;
  #error: unknown;
  #failed = false;

  push(item: T): void {
    this.#items.push(item);
    this.#wake?.();
  }

  close(): void {
    this.#closed = true;
    this.#wake?.();
  }

  fail(error: unknown): void {
    this.#failed = true;
    this.#error = error;
    this.close();
  }

  drained(): Promise<void> {
    if (this.#items.length === 0 && this.#wake) return Promise.resolve();
    return new Promise((resolve) => this.#drained.push(resolve));
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T> {
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.#failed) throw this.#error;
      if (this.#closed) return;
      const waiting = new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      for (const d of this.#drained.splice(0)) d();
      await waiting;
      this.#wake = undefined;
    }
  }
}
