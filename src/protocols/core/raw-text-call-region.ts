import { partialMarkerSuffix } from "./match-pattern.js";
import type { EngineContext, FeedResult, Region } from "./stream-engine.js";
import { TextPieces } from "./text-pieces.js";

/** A marker that ends a raw-text call; `consume: false` leaves it for the content scanner (e.g. the next `>>>`). */
export interface RawTextEnd {
  marker: string;
  consume: boolean;
}

export interface RawTextCallConfig {
  /** Text that opened the region (kept in `raw`). */
  opener: string;
  name: string;
  /** The argument the text becomes, e.g. `code` → `{"code": "<text>"}`. */
  argName: string;
  ends: readonly RawTextEnd[];
  /** Text of the body the start rule already read (it looked ahead into it). */
  lead?: string;
}

/**
 * A call whose whole argument is free text up to an end marker or the end of output — the code-interpreter
 * convention (`<|python_tag|>print(1)<|eom_id|>`, Functionary's `>>>python\n…`). The model's stop token
 * usually ends such a call, so reaching the end of output completes it rather than truncating it.
 * The text is trimmed; whitespace-only text is no call at all.
 */
export class RawTextCallRegion implements Region {
  private readonly body = new TextPieces();
  private ended = false;
  private index = -1;

  constructor(
    private readonly ctx: EngineContext,
    private readonly cfg: RawTextCallConfig,
  ) {
    if (cfg.lead) this.append(cfg.lead);
  }

  feed(text: string, from: number, final: boolean): FeedResult {
    let best = -1;
    let bestEnd: RawTextEnd | undefined;
    for (const end of this.cfg.ends) {
      const idx = text.indexOf(end.marker, from);
      if (idx >= 0 && (best < 0 || idx < best)) {
        best = idx;
        bestEnd = end;
      }
    }
    if (bestEnd) {
      this.append(text.slice(from, best));
      this.complete(bestEnd.marker);
      return { pos: bestEnd.consume ? best + bestEnd.marker.length : best, done: true };
    }
    let hold = 0;
    if (!final)
      for (const end of this.cfg.ends) hold = Math.max(hold, partialMarkerSuffix(text, from, end.marker));
    const upTo = text.length - hold;
    this.append(text.slice(from, upTo));
    if (final) {
      this.complete("");
      return { pos: text.length, done: true };
    }
    return { pos: upTo, done: false };
  }

  finish(): void {
    this.complete("");
  }

  /** The call starts (name known) with the first non-blank character of its text. */
  private append(s: string): void {
    this.body.push(s);
    if (this.index < 0 && /\S/.test(s)) this.index = this.ctx.startCall(this.cfg.name).index;
  }

  private complete(closer: string): void {
    if (this.ended) return;
    this.ended = true;
    if (this.index < 0) return;
    const body = this.body.toString();
    const call = { id: "", name: this.cfg.name, arguments: { [this.cfg.argName]: body.trim() } };
    this.ctx.endCall(this.index, call, this.cfg.opener + body + closer, false);
  }
}
