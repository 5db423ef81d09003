import { isWs } from "./match-pattern.js";
import type { FeedResult, Region } from "./stream-engine.js";

/** Longest whitespace gap looked through (keeps the hold-back bounded). */
const MAX_GAP = 64;

/**
 * Wraps a call region so that, once it is done, whitespace up to the next of `markers` (the template's separator
 * between calls, e.g. `\n` before the next `<｜tool▁call▁begin｜>`) is consumed as markup instead of becoming content.
 * Whitespace followed by anything else stays content.
 */
export class SwallowGapRegion implements Region {
  private innerDone = false;

  constructor(
    private readonly inner: Region,
    private readonly markers: readonly string[],
  ) {}

  feed(text: string, from: number, final: boolean): FeedResult {
    let pos = from;
    if (!this.innerDone) {
      const r = this.inner.feed(text, from, final);
      if (r.revert !== undefined || !r.done) return r;
      this.innerDone = true;
      pos = r.pos;
    }
    const n = text.length;
    let j = pos;
    while (j < n && j - pos <= MAX_GAP && isWs(text.charCodeAt(j))) j++;
    if (j === n && j - pos <= MAX_GAP) return { pos, done: final };
    if (j === pos || j - pos > MAX_GAP) return { pos, done: true };
    for (const m of this.markers) {
      if (text.startsWith(m, j)) return { pos: j, done: true };
      if (!final && n - j < m.length && m.startsWith(text.slice(j))) return { pos, done: false };
    }
    return { pos, done: true };
  }

  finish(): void {
    if (!this.innerDone) this.inner.finish();
  }
}
