import { createInterface, type Interface } from "node:readline";

export interface LineReaderOptions {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean };
  /** Ctrl-C on a terminal. Default: behave like end of input. */
  onInterrupt?: () => void;
}

/**
 * Lines from a terminal or a pipe, one at a time, on request. Lines that arrive before anyone asks are queued, not
 * lost — a script may pipe a question and all its approval answers at once. `null` means end of input (Ctrl-D, or the
 * pipe closed).
 */
export class LineReader {
  readonly interactive: boolean;
  readonly #rl: Interface;
  readonly #queue: string[] = [];
  #waiter: ((line: string | null) => void) | undefined;
  #closed = false;

  constructor(options: LineReaderOptions) {
    this.interactive = options.input.isTTY === true && options.output.isTTY === true;
    this.#rl = createInterface({
      input: options.input,
      output: options.output,
      terminal: this.interactive,
      historySize: this.interactive ? 100 : 0,
    });
    this.#rl.on("line", (line) => {
      const waiter = this.#waiter;
      this.#waiter = undefined;
      if (waiter) waiter(line);
      else this.#queue.push(line);
    });
    this.#rl.on("close", () => {
      this.#closed = true;
      const waiter = this.#waiter;
      this.#waiter = undefined;
      // Ctrl-D leaves the cursor after the prompt; what is said next belongs on its own line.
      if (waiter && this.interactive) options.output.write("\n");
      waiter?.(null);
    });
    this.#rl.on("SIGINT", () => {
      if (options.onInterrupt) options.onInterrupt();
      else this.close();
    });
  }

  /** Ask for one line. On a terminal the prompt is shown (and `prefill` typed in, ready to edit). */
  next(prompt = "", prefill?: string): Promise<string | null> {
    const queued = this.#queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.#closed) return Promise.resolve(null);
    if (this.interactive) {
      this.#rl.setPrompt(prompt);
      this.#rl.prompt();
      if (prefill) this.#rl.write(prefill);
    }
    return new Promise((resolve) => {
      this.#waiter = resolve;
    });
  }

  close(): void {
    if (!this.#closed) this.#rl.close();
  }
}
