import { randomUUID } from "node:crypto";
import type { Tool } from "@modelcontextprotocol/server";
import type { ParserEvent, ParserOptions, ToolCall, ToolCallParser } from "../types.js";
import { isWs, type MatchResult, matchPattern, type PatternToken } from "./match-pattern.js";

/** What a region (reasoning block, call body, …) may do while it reads text. */
export interface EngineContext {
  readonly tools: readonly Tool[] | undefined;
  emit(event: ParserEvent): void;
  /** Emits `call-start` and returns the call's index and id. */
  startCall(name: string, id?: string): { index: number; id: string };
  /** Emits `call-end` for a started call. */
  endCall(index: number, call: ToolCall, raw: string, repaired: boolean): void;
}

/** What `Region.feed` returns. The engine reads it at once and keeps nothing, so a region may reuse one object. */
export interface FeedResult {
  /** Index in `text` up to which the region consumed; the rest is offered again with the next chunk. */
  pos: number;
  /** The region is over; text from `pos` on is content again. */
  done: boolean;
  /** Not a call after all: this text (the marker and what the region consumed) is content. */
  revert?: string;
}

/** A stretch of output that is not content: reasoning, a call body. */
export interface Region {
  /**
   * Reads `text` from `from`. Regions keep their own state between calls; text after the returned `pos` is
   * held back and offered again (keep that hold-back bounded: only a possible partial marker).
   */
  feed(text: string, from: number, final: boolean): FeedResult;
  /** Output ended while the region was open (after a final `feed` that did not finish it). */
  finish(): void;
}

export interface StartMatch {
  /** the matched text */
  text: string;
  captures: Record<string, string>;
}

/** Where a region begins in content. */
export interface StartRule {
  /** Characters a match can begin with (the content scanner only tries the rule there). */
  first: string;
  pattern: readonly PatternToken[];
  /**
   * Opens the region for a match. `null` drops the marker (special tokens that carry nothing). The region is
   * fed from the match's `body` mark when the pattern has one (look-ahead patterns), else from its end.
   */
  open(ctx: EngineContext, match: StartMatch): Region | null;
  /**
   * false: the engine does not also look for this rule inside a code fence (reasoning and dropped tokens). By
   * default every rule is also tried after a fence opener (```` ```json\n<tool_call>… ````), and a closing fence
   * right after its region is consumed with it: a fence that wrapped a call leaves nothing behind.
   */
  fence?: false;
}

const FENCE = "```";

/** After a call region that a fence opened: consumes the closing fence (after whitespace), if it is there. */
class FenceCloseRegion implements Region {
  feed(text: string, from: number, final: boolean): FeedResult {
    const n = text.length;
    let j = from;
    while (j < n && isWs(text.charCodeAt(j)) && j - from < 64) j++;
    if (text.startsWith(FENCE, j)) return { pos: j + FENCE.length, done: true };
    if (!final && (j === n || (n - j < FENCE.length && FENCE.startsWith(text.slice(j)))) && j - from < 64)
      return { pos: from, done: false };
    return { pos: from, done: true };
  }
  finish(): void {}
}

/** `rule` inside a code fence: the same region, opened after ```` ```lang ```` (the fence is part of its opener). */
function fencedRule(rule: StartRule): StartRule {
  return {
    first: "`",
    pattern: [FENCE, { letters: true }, { ws: true }, ...rule.pattern],
    open: (ctx, match) => {
      const region = rule.open(ctx, match);
      return region === null ? null : new FencedRegion(region);
    },
    fence: false,
  };
}

/** A call region opened inside a fence, followed by the fence's close. */
class FencedRegion implements Region {
  private closing: FenceCloseRegion | null = null;
  constructor(private readonly inner: Region) {}
  feed(text: string, from: number, final: boolean): FeedResult {
    if (this.closing !== null) return this.closing.feed(text, from, final);
    const r = this.inner.feed(text, from, final);
    if (r.revert !== undefined || !r.done) return r;
    this.closing = new FenceCloseRegion();
    return this.closing.feed(text, r.pos, final);
  }
  finish(): void {
    if (this.closing === null) this.inner.finish();
  }
}

/** A start rule as the content scanner tries it: with the literal its pattern begins with ("" if none). */
interface Candidate {
  rule: StartRule;
  lead: string;
}

export interface StreamParserSpec {
  rules: readonly StartRule[];
  /** A region to start in, given the prompt's prefix (e.g. reasoning after `<think>`). */
  initialRegion?(ctx: EngineContext, prefix: string): Region | null;
  /**
   * The format's closing markup (`</tool_call>`, `<|tool_calls_section_end|>`). Outside a region it closes nothing
   * and is dropped wherever it stands: after a call (a repeat), after a body that could not be read, or in prose
   * with no opener at all (a small model that writes `…}}</tool_call>` as its answer). Right after a region that
   * ended a call, the start of one cut off by the end of output (`</tool`) is dropped too; elsewhere such a
   * fragment stays content (`3 <` at the end of prose is prose).
   */
  strayClosers?: readonly string[];
}

/**
 * The shared streaming driver: scans content for call/reasoning starts with bounded look-ahead, hands
 * text to the open region, and never keeps more than a possible partial marker between chunks. Each chunk
 * is read once; regions are resumable, so cost is linear in the output length.
 *
 * Models stream a few characters at a time, so the fixed cost per chunk is what counts (see
 * bench/parse-stream.ts): the content scan is a char-code loop (or `indexOf` on longer text), a chunk of plain
 * prose takes a fast path that allocates only its event, and event arrays are created only when there is an
 * event.
 */
export class StreamParser implements ToolCallParser {
  private pending = "";
  private region: Region | null = null;
  /**
   * Events of the current `push`; null while there are none. Most pushes yield one event, and `[ev]` sizes the
   * array for it, where a push onto `[]` would allocate room for 17.
   */
  private out: ParserEvent[] | null = null;
  /** Start rules by the code unit a match begins with: ASCII in a table, anything else in a map. */
  private readonly asciiRules: (Candidate[] | undefined)[] = [];
  private readonly otherRules = new Map<number, Candidate[]>();
  /** The only character any rule starts with, or "" when there are several (or none). */
  private readonly soleFirst: string = "";
  private readonly soleFirstCode: number = -1;
  /** `asciiFirst[c] === 1` when a rule may start at ASCII code `c`. */
  private readonly asciiFirst = new Uint8Array(128);
  private readonly hasRules: boolean;
  private callCount = 0;
  /** `call-end` events so far, and their count when the open region began. */
  private callEnds = 0;
  private callEndsAtOpen = 0;
  /** A region that ended a call just closed: a stray closer may follow (`spec.strayClosers`). */
  private afterCall = false;
  private readonly strayClosers: readonly string[];
  private ended = false;
  private readonly ctx: EngineContext;
  /** `ParserOptions.calls === false`: regions that would make a call hand their text back as content. */
  private readonly callsOff: boolean;

  constructor(spec: StreamParserSpec, opts: ParserOptions = {}) {
    const firsts = new Set<number>();
    // Rules a format wrote for fences come first (they are in `spec.rules`), the derived fenced ones after.
    const fenced = spec.rules.filter((r) => r.fence !== false && !r.first.includes("`")).map(fencedRule);
    // Stray closers last: a format's own rule for the same marker (an explicit drop) is tried first.
    for (const rule of [...spec.rules, ...fenced, ...strayCloserRules(spec)]) {
      // By UTF-16 code unit: that is what the content scanner compares.
      for (let k = 0; k < rule.first.length; k++) {
        const c = rule.first.charCodeAt(k);
        if (firsts.has(c) && this.rulesFor(c)?.some((x) => x.rule === rule)) continue;
        firsts.add(c);
        const list = this.rulesFor(c) ?? [];
        const first = rule.pattern[0];
        list.push({ rule, lead: typeof first === "string" ? first : "" });
        if (c < 128) {
          this.asciiRules[c] = list;
          this.asciiFirst[c] = 1;
        } else this.otherRules.set(c, list);
      }
    }
    this.hasRules = firsts.size > 0;
    this.callsOff = opts.calls === false;
    this.strayClosers = spec.strayClosers ?? [];
    if (firsts.size === 1) {
      this.soleFirstCode = [...firsts][0]!;
      this.soleFirst = String.fromCharCode(this.soleFirstCode);
    }
    const createId = opts.createId ?? (() => `call_${randomUUID().replace(/-/g, "").slice(0, 24)}`);
    const ids = new Map<number, string>();
    this.ctx = {
      tools: opts.tools,
      emit: (ev) => this.emit(ev),
      startCall: (name, id) => {
        const index = this.callCount++;
        const callId = id ?? createId();
        ids.set(index, callId);
        this.emit({ type: "call-start", index, id: callId, name });
        return { index, id: callId };
      },
      endCall: (index, call, raw, repaired) => {
        this.callEnds++;
        this.emit({
          type: "call-end",
          index,
          call: { ...call, id: ids.get(index) ?? call.id },
          raw,
          repaired,
        });
      },
    };
    if (opts.prefix && spec.initialRegion) this.region = spec.initialRegion(this.ctx, opts.prefix);
  }

  push(chunk: string): ParserEvent[] {
    if (this.ended || chunk.length === 0) return this.take();
    if (
      this.region === null &&
      this.pending.length === 0 &&
      !this.afterCall &&
      this.out === null &&
      this.nextCandidate(chunk, 0) < 0
    ) {
      // The common case, prose with nothing that could start a marker: one event, nothing held back.
      return [{ type: "content", text: chunk }];
    }
    this.run(this.pending.length === 0 ? chunk : this.pending + chunk, false);
    return this.take();
  }

  end(): ParserEvent[] {
    if (this.ended) return [];
    this.ended = true;
    this.run(this.pending, true);
    this.pending = "";
    return this.take();
  }

  private take(): ParserEvent[] {
    const events = this.out;
    if (events === null) return [];
    this.out = null;
    return events;
  }

  private rulesFor(c: number): Candidate[] | undefined {
    return c < 128 ? this.asciiRules[c] : this.otherRules.get(c);
  }

  /** Index of the next character at or after `from` where a rule may start, or -1. */
  private nextCandidate(text: string, from: number): number {
    const n = text.length;
    const sole = this.soleFirstCode;
    if (sole >= 0) {
      // A few characters (a typical chunk): a loop beats the call into `indexOf`, which wins on longer text.
      if (n - from > 16) return text.indexOf(this.soleFirst, from);
      for (let i = from; i < n; i++) if (text.charCodeAt(i) === sole) return i;
      return -1;
    }
    if (!this.hasRules) return -1;
    const table = this.asciiFirst;
    for (let i = from; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c < 128 ? table[c] === 1 : this.otherRules.has(c)) return i;
    }
    return -1;
  }

  private emit(ev: ParserEvent): void {
    const out = this.out;
    if (out === null) {
      if (
        (ev.type === "content" || ev.type === "reasoning" || ev.type === "call-args-delta") &&
        ev.text.length === 0
      )
        return;
      this.out = [ev];
      return;
    }
    if (ev.type === "content" || ev.type === "reasoning" || ev.type === "call-args-delta") {
      if (ev.text.length === 0) return;
      // (never read `out[-1]`: an out-of-range index is a slow property lookup in V8)
      const last = out.length > 0 ? out[out.length - 1]! : undefined;
      if (
        last !== undefined &&
        last.type === ev.type &&
        (ev.type !== "call-args-delta" || (last as typeof ev).index === ev.index)
      ) {
        (last as { text: string }).text += ev.text;
        return;
      }
    }
    out.push(ev);
  }

  private emitContent(text: string): void {
    if (text.length === 0) return;
    const out = this.out;
    if (out === null) {
      this.out = [{ type: "content", text }];
      return;
    }
    const last = out.length > 0 ? out[out.length - 1]! : undefined;
    if (last !== undefined && last.type === "content") last.text += text;
    else out.push({ type: "content", text });
  }

  private run(text: string, final: boolean): void {
    let pos = 0;
    const n = text.length;
    for (;;) {
      const region = this.region;
      if (region !== null) {
        const r = region.feed(text, pos, final);
        if (r.revert !== undefined) {
          this.emitContent(r.revert);
          this.region = null;
          pos = r.pos;
          continue;
        }
        pos = r.pos;
        if (r.done) {
          this.region = null;
          this.afterCall = this.callEnds > this.callEndsAtOpen && this.strayClosers.length > 0;
          continue;
        }
        if (final) {
          region.finish();
          this.region = null;
          pos = n;
        }
        break;
      }
      if (pos >= n) break;
      const next = this.scanContent(text, pos, final);
      if (next < 0) {
        // held back a possible partial marker at -next-1
        pos = -next - 1;
        break;
      }
      pos = next;
      if (this.region === null && pos >= n) break;
    }
    this.pending = pos < n ? text.slice(pos) : "";
  }

  /**
   * Right after a call: drops a stray closer at `pos` (after whitespace, which stays content). Returns where
   * content goes on, or `-(i+1)` to hold back from `i` while the text there may still become one.
   */
  private skipStrayCloser(text: string, pos: number, final: boolean): number {
    const n = text.length;
    let j = pos;
    while (j < n && isWs(text.charCodeAt(j)) && j - pos < 64) j++;
    if (j === n && !final && j - pos < 64) return pos; // only whitespace yet: look again at the next chunk
    this.afterCall = false;
    for (const closer of this.strayClosers) {
      if (text.startsWith(closer, j)) {
        this.emitContent(text.slice(pos, j));
        this.afterCall = true; // `</tool_call></tool_call></tool`: each is dropped
        return j + closer.length;
      }
    }
    for (const closer of this.strayClosers) {
      if (j < n && n - j < closer.length && closer.startsWith(text.slice(j))) {
        this.emitContent(text.slice(pos, j));
        if (final) return n; // output ended inside the closer: `</tool`
        this.afterCall = true;
        return -(j + 1);
      }
    }
    return pos;
  }

  /**
   * Emits content from `pos` up to the next region start and opens it. Returns where to continue, or
   * `-(i+1)` when text from `i` must be held back because it may still become a marker.
   */
  private scanContent(text: string, pos: number, final: boolean): number {
    while (this.afterCall) {
      const at = this.skipStrayCloser(text, pos, final);
      if (at < 0) return at;
      if (at === pos) break;
      pos = at;
    }
    for (let i = this.nextCandidate(text, pos); i >= 0; i = this.nextCandidate(text, i + 1)) {
      const rules = this.rulesFor(text.charCodeAt(i))!;
      for (let k = 0; k < rules.length; k++) {
        const { rule, lead } = rules[k]!;
        // Most candidates (a `<` in prose, a run of `<<<<`) fail on the rule's leading literal: rejected here
        // without the pattern matcher's allocations.
        if (lead !== "" && !mayStartWith(text, i, lead, final)) continue;
        const res: MatchResult = matchPattern(text, i, rule.pattern, final);
        if (res.status === "partial") {
          this.emitContent(text.slice(pos, i));
          return -(i + 1);
        }
        if (res.status === "match") {
          this.emitContent(text.slice(pos, i));
          const bodyAt = res.marks.body ?? res.end;
          this.callEndsAtOpen = this.callEnds;
          const match = { text: text.slice(i, bodyAt), captures: res.captures };
          this.region = this.callsOff
            ? TextOnlyRegion.open(rule, this.ctx, match)
            : rule.open(this.ctx, match);
          return bodyAt;
        }
      }
    }
    this.emitContent(pos === 0 ? text : text.slice(pos));
    return text.length;
  }
}

/**
 * A region opened for a parser whose model was offered no tool (`ParserOptions.calls === false`): the region reads as
 * usual, but against a context that records instead of emitting. A region that starts, ends or fails a call is call
 * markup, and the model's text — the marker and everything the region consumed — comes back as content, byte for
 * byte; what a region that makes no call emits (reasoning) is passed on as it comes.
 */
class TextOnlyRegion implements Region {
  #consumed: string;
  #sawCall = false;
  #inner: Region | undefined;

  static open(rule: StartRule, ctx: EngineContext, match: StartMatch): Region | null {
    const region = new TextOnlyRegion(ctx, match.text);
    const recording: EngineContext = {
      tools: ctx.tools,
      emit: (ev) => region.note(ev),
      startCall: (name, id) => {
        region.note({ type: "call-start", index: -1, id: id ?? "", name });
        return { index: -1, id: id ?? "" };
      },
      endCall: (index, call, raw, repaired) => region.note({ type: "call-end", index, call, raw, repaired }),
    };
    const inner = rule.open(recording, match);
    if (inner === null) return null;
    region.#inner = inner;
    return region;
  }

  private constructor(
    private readonly ctx: EngineContext,
    marker: string,
  ) {
    this.#consumed = marker;
  }

  note(ev: ParserEvent): void {
    if (ev.type !== "content" && ev.type !== "reasoning") this.#sawCall = true;
    if (!this.#sawCall) this.ctx.emit(ev);
  }

  feed(text: string, from: number, final: boolean): FeedResult {
    const r = (this.#inner as Region).feed(text, from, final);
    if (r.revert !== undefined) return r;
    this.#consumed += text.slice(from, r.pos);
    if (r.done && this.#sawCall) return { pos: r.pos, done: true, revert: this.#consumed };
    return r;
  }

  finish(): void {
    (this.#inner as Region).finish();
    // Output that ended inside call markup (cut off) is still what the model wrote.
    if (this.#sawCall) this.ctx.emit({ type: "content", text: this.#consumed });
  }
}

/**
 * A closer met in content closes nothing: it is markup, dropped like a special token that carries nothing. (The
 * same as `dropRule` in reasoning-region.ts, which imports this file.) Closers a format already drops are left out.
 */
function strayCloserRules(spec: StreamParserSpec): StartRule[] {
  const dropped = new Set(
    spec.rules.flatMap((r) =>
      r.pattern.length === 1 && typeof r.pattern[0] === "string" ? [r.pattern[0]] : [],
    ),
  );
  return (spec.strayClosers ?? [])
    .filter((closer) => closer.length > 0 && !dropped.has(closer))
    .map((closer) => ({ first: closer[0]!, pattern: [closer], open: () => null, fence: false }));
}

/** Can `lead` be at `i`: it is there, or the text ends inside it (and more may come)? Its first char matched. */
function mayStartWith(text: string, i: number, lead: string, final: boolean): boolean {
  const avail = text.length - i;
  const len = Math.min(avail, lead.length);
  for (let k = 1; k < len; k++) if (text.charCodeAt(i + k) !== lead.charCodeAt(k)) return false;
  return avail >= lead.length || !final;
}
