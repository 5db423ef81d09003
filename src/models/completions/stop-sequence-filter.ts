/**
 * Cuts streamed text at the first stop sequence. Servers match stops on tokens (mlx_lm encodes each stop string
 * and compares token ids), so a stop that tokenizes differently in context slips through; this re-checks on the text.
 * Holds back only a tail that could still become a stop.
 */
export class StopSequenceFilter {
  readonly #stops: readonly string[];
  #pending = "";
  #stopped = false;
  /** The stop sequence the text ended at, once `stopped`. */
  matched: string | undefined;

  constructor(stops: readonly string[]) {
    this.#stops = stops.filter((s) => s !== "");
  }

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Text safe to pass on now; `stopped` turns true when a stop sequence was found (the rest is dropped). */
  push(chunk: string): string {
    if (this.#stopped) return "";
    const text = this.#pending + chunk;
    let cut = -1;
    for (const stop of this.#stops) {
      const at = text.indexOf(stop);
      if (at !== -1 && (cut === -1 || at < cut)) {
        cut = at;
        this.matched = stop;
      }
    }
    if (cut !== -1) {
      this.#stopped = true;
      this.#pending = "";
      return text.slice(0, cut);
    }
    let hold = 0;
    for (const stop of this.#stops) {
      for (let n = Math.min(stop.length - 1, text.length); n > hold; n--) {
        if (text.endsWith(stop.slice(0, n))) {
          hold = n;
          break;
        }
      }
    }
    this.#pending = text.slice(text.length - hold);
    return text.slice(0, text.length - hold);
  }

  /** The held-back tail, at the end of the stream. */
  end(): string {
    const rest = this.#stopped ? "" : this.#pending;
    this.#pending = "";
    return rest;
  }
}
