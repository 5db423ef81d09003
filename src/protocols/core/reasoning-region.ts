import { partialMarkerSuffix } from "./match-pattern.js";
import type { EngineContext, FeedResult, Region, StartRule } from "./stream-engine.js";

/**
 * Text up to `endMarker` is reasoning; it never yields calls. Output that ends inside it is still reasoning.
 * `implicitEnds` are markers that end unclosed reasoning without being consumed (Kimi-K2's tool-calls section
 * begins after reasoning its template never closes): content — the section — starts there.
 */
export class ReasoningRegion implements Region {
  constructor(
    private readonly ctx: EngineContext,
    private readonly endMarker: string,
    private readonly implicitEnds: readonly string[] = [],
  ) {}

  feed(text: string, from: number, final: boolean): FeedResult {
    const idx = text.indexOf(this.endMarker, from);
    let cut = -1;
    for (const m of this.implicitEnds) {
      const k = text.indexOf(m, from);
      if (k >= 0 && (cut === -1 || k < cut) && (idx === -1 || k < idx)) cut = k;
    }
    if (cut >= 0) {
      this.ctx.emit({ type: "reasoning", text: text.slice(from, cut) });
      return { pos: cut, done: true };
    }
    if (idx >= 0) {
      this.ctx.emit({ type: "reasoning", text: text.slice(from, idx) });
      return { pos: idx + this.endMarker.length, done: true };
    }
    let hold = final ? 0 : partialMarkerSuffix(text, from, this.endMarker);
    if (!final) for (const m of this.implicitEnds) hold = Math.max(hold, partialMarkerSuffix(text, from, m));
    this.ctx.emit({ type: "reasoning", text: text.slice(from, text.length - hold) });
    return { pos: text.length - hold, done: false };
  }

  finish(): void {}
}

/** `<think>…</think>` (or another pair) as reasoning. */
export function reasoningRule(
  start = "<think>",
  end = "</think>",
  implicitEnds: readonly string[] = [],
): StartRule {
  return {
    first: start[0]!,
    pattern: [start],
    open: (ctx) => new ReasoningRegion(ctx, end, implicitEnds),
    fence: false,
  };
}

/** A marker that carries nothing for the reader (a stray `</think>`, an end-of-turn token): dropped. */
export function dropRule(marker: string): StartRule {
  return { first: marker[0]!, pattern: [marker], open: () => null, fence: false };
}

/** Initial region for a prompt that ended with `<think>` (the output starts inside reasoning). */
export function reasoningPrefix(start = "<think>", end = "</think>", implicitEnds: readonly string[] = []) {
  return (ctx: EngineContext, prefix: string): Region | null =>
    prefix.trimEnd().endsWith(start) ? new ReasoningRegion(ctx, end, implicitEnds) : null;
}
