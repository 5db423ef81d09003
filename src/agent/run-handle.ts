import type { AgentEvent } from "./events.js";
import type { RunView } from "./run-view.js";

/**
 * A run in progress: iterate it for events, await `result` for the outcome. Events are buffered from the start, so
 * iterating late loses nothing.
 */
export class RunHandle implements AsyncIterable<AgentEvent> {
  readonly #buffer: AgentEvent[] = [];
  #waiter: (() => void) | undefined;
  #done = false;
  readonly result: Promise<RunView>;

  constructor(
    readonly runId: string,
    start: (emit: (event: AgentEvent) => void) => Promise<RunView>,
  ) {
    this.result = Promise.resolve()
      .then(() => start((event) => this.#push(event)))
      .finally(() => {
        this.#done = true;
        this.#wake();
      });
    // Callers that only iterate must not see an unhandled rejection; `result` still rejects for those who await it.
    this.result.catch(() => {});
  }

  #push(event: AgentEvent): void {
    this.#buffer.push(event);
    this.#wake();
  }

  #wake(): void {
    const waiter = this.#waiter;
    this.#waiter = undefined;
    waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    let index = 0;
    for (;;) {
      while (index < this.#buffer.length) yield this.#buffer[index++] as AgentEvent;
      if (this.#done) {
        await this.result;
        return;
      }
      await new Promise<void>((resolve) => {
        this.#waiter = resolve;
      });
    }
  }
}
