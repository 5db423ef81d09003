import { REDACTED, type Redactor, type SecretSpan } from "./redact-secrets.js";

/**
 * How many characters a streamed text holds back for the credential patterns (tokens, URL credentials, connection
 * strings): a pattern match starting before the cut has this much text after it, so it is either complete or still
 * matching across the cut (and the cut moves to its start). 128 characters is ~30 tokens of delay on a live display.
 */
const PATTERN_WINDOW = 128;
/**
 * Text beyond the hold-back waits until this much has gathered before it is scanned and shown: the scan covers the
 * whole window (~200 characters, every pattern): at every delta that cost 5.4 µs a delta, once per 32 characters 0.9 µs
 * (bench:redact-stream), and a display lags by a few tokens more.
 */
const BATCH_CHARS = 32;
/** Already-emitted text kept as context, so look-behind patterns (`password=`, `Bearer `) still see their keyword. */
const CONTEXT_CHARS = 64;
/** A PEM block is longer than any window: from its first line on, everything is held until the block is complete. */
const OPENERS = /-----BEGIN [A-Z ]*PRIVATE KEY-----/g;

/**
 * Redaction for text that arrives in pieces (a model's text, reasoning and call-argument deltas). Redacting each delta
 * alone would let a secret split across two deltas through, so this keeps a carry: the tail that could still be the
 * start of a secret (the longest literal secret minus one character, and at least PATTERN_WINDOW for the patterns) is
 * held back until more text arrives or the stream ends (`flush`). The cut never falls inside a secret found in the
 * carry. What the stream emits, concatenated, equals the redacted whole text whenever no secret straddles a flush.
 * Stored text does not depend on this: the agent redacts the complete turn before it stores it.
 */
export class StreamRedactor {
  #pending = "";
  #context = "";
  readonly #hold: number;

  constructor(private readonly redact: Redactor) {
    this.#hold = Math.max(redact.longestLiteral - 1, PATTERN_WINDOW);
  }

  /** Add a piece; returns the redacted text that is now safe to show (often ""). */
  push(delta: string): string {
    this.#pending += delta;
    if (this.#pending.length < this.#hold + BATCH_CHARS) return "";
    return this.#emit(this.#pending.length - this.#hold);
  }

  /** The stream ended (or must be shown now): everything held back, redacted. */
  flush(): string {
    return this.#pending.length === 0 ? "" : this.#emit(this.#pending.length);
  }

  #emit(wanted: number): string {
    const offset = this.#context.length;
    const whole = this.#context + this.#pending;
    const spans = this.redact.find(whole).map(([s, e]): SecretSpan => [s - offset, e - offset]);
    let cut = wanted;
    if (cut < this.#pending.length) {
      for (const [start, end] of spans) if (start < cut && end > cut) cut = Math.max(0, start);
      OPENERS.lastIndex = 0;
      for (const match of this.#pending.matchAll(OPENERS)) {
        const covered = spans.some(([s, e]) => s <= match.index && e > match.index);
        if (!covered && match.index < cut) cut = match.index;
      }
    }
    // Never end a piece between the halves of a surrogate pair: a display would print two replacement characters.
    const last = this.#pending.charCodeAt(cut - 1);
    if (cut < this.#pending.length && last >= 0xd800 && last <= 0xdbff) cut -= 1;
    if (cut <= 0) return "";
    let out = "";
    let from = 0;
    for (const [start, end] of spans) {
      if (end <= 0 || start >= cut) continue;
      out += this.#pending.slice(from, Math.max(0, start)) + REDACTED;
      from = Math.min(end, cut);
    }
    out += this.#pending.slice(from, cut);
    this.#context = (this.#context + this.#pending.slice(0, cut)).slice(-CONTEXT_CHARS);
    this.#pending = this.#pending.slice(cut);
    return out;
  }
}
