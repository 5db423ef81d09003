import {
  type CallObjectTrack,
  type JsonPath,
  type JsonScanHooks,
  JsonScanner,
  type ScanStatus,
} from "./json-scanner.js";
import { isWs, partialMarkerSuffix } from "./match-pattern.js";
import { readSteps, type Step } from "./read-steps.js";
import type { EngineContext, FeedResult, Region } from "./stream-engine.js";
import { TextPieces } from "./text-pieces.js";

/** A resumable scanner over one bracketed value (JSON, a Python list, …). */
export interface ValueScanner {
  scan(text: string, from: number, final: boolean): ScanStatus;
  /** Index where the last `scan` stopped (see `ScanStatus`). */
  readonly end: number;
  /** A value cut off by the end of output can be completed with closers alone (repairable, not truncated). */
  readonly callsSettled: boolean;
  /**
   * Index in the text of the last `scan` just after the last call of the value that closed there, or -1: a list
   * cut off inside its second call still has a complete first one (`[f(a=1), g(`).
   */
  readonly callEndAt?: number;
}

/** One call object of a body, in order (its ordinal). */
export type DecodedItem =
  | { kind: "call"; name: string; arguments: Record<string, unknown>; id?: string; repaired: boolean }
  | { kind: "error"; message: string }
  /** not a call: text for the reader (e.g. `{"type":"final_answer","content":…}`) */
  | { kind: "content"; text: string }
  /** not a call: the model's reasoning (e.g. a `{"type":"thought",…}` line) */
  | { kind: "reasoning"; text: string };

export type DecodeOutcome = { items: DecodedItem[] } | { error: string };

export interface CallBodyConfig {
  /** Text that opened the region (kept in raw text, and given back as content on revert). */
  opener: string;
  /** Marker that closes the region, e.g. `</tool_call>`; also ends an unterminated body early. */
  endMarker?: string;
  /** Text expected right after the body, e.g. `)`; consumed when present. */
  closer?: string;
  /** Characters that may begin a body value (default `{[`; `*` = any, for bodies that end at `endMarker`). */
  valueStart?: string;
  /** After a value, another value may follow inside the same region (`<tool_call>{…}\n{…}</tool_call>`). */
  multiple?: boolean;
  /** Characters consumed after a value when present (e.g. `;` between Llama 3 calls). */
  separators?: string;
  /** What to do when the text after the opener is not a value: give it back as content, or report it. */
  onNonValue: "revert" | "error";
  createScanner(hooks: JsonScanHooks, stopMarker: string | undefined): ValueScanner;
  /** Paths of call objects inside the value (for early call-start and argument deltas). */
  isCallPath?(path: JsonPath): boolean;
  /** The call's name, once its members tell it (default: `name`). */
  nameFrom?(members: Record<string, string>): string | undefined;
  /** Decodes a complete (or closed-by-marker) value into its call objects, by ordinal. */
  decode(raw: string, ctx: EngineContext): DecodeOutcome;
  /** The marker already named the call (e.g. `||call: name(`): the value is its arguments. */
  namedCall?: { index: number; id: string; name: string };
  /** A code fence was opened before the body (by the start rule): a closing fence after it is consumed. */
  fenced?: boolean;
  /** Emit call-start only once the arguments begin (formats where a bare `{"name": …}` may be prose). */
  startOnArguments?: boolean;
  /**
   * A first value that does not decode as calls, in a region nothing was announced from, is prose (`[see f(x)]`)
   * and is given back as content, unless it calls an offered tool by name (then it is a malformed call: error).
   */
  revertUndecodable?: boolean;
  /** A correct call in this format, quoted in error messages. */
  example: string;
  /** Names the body in messages, e.g. "the JSON inside <tool_call>". */
  what: string;
}

type Phase = "lead" | "value" | "trail" | "skip";

const FENCE = "```";
const MAX_SKIPPED_RAW = 4096;

/**
 * Reads call bodies after an opener: optional fence, one or more values (scanned incrementally), then the
 * closer/end marker. Emits call-start as soon as a name is known, argument deltas while arguments stream,
 * and call-end/parse-error as each value completes.
 */
export class CallBodyRegion implements Region, JsonScanHooks {
  private phase: Phase = "lead";
  private raw: string;
  /** Text of the value being read (it may grow by tiny pieces for megabytes: `[[[[…`). */
  private readonly value = new TextPieces();
  private get valueRaw(): string {
    return this.value.toString();
  }
  private set valueRaw(v: string) {
    this.value.set(v);
  }
  private scanner: ValueScanner | null = null;
  /** Length of the value up to the end of its last complete call (0: none yet). */
  private settledLength = 0;
  private started = new Map<number, { index: number; id: string }>();
  private delta: { index: number; from: number } | null = null;
  private curText = "";
  private fenceOpen = false;
  private readonly valueStart: string;
  /** Returned while a value is still open (the engine reads a result at once and keeps none). */
  private readonly more: FeedResult = { pos: 0, done: false };

  constructor(
    private readonly ctx: EngineContext,
    private readonly cfg: CallBodyConfig,
  ) {
    this.raw = cfg.opener;
    this.valueStart = cfg.valueStart ?? "{[";
    if (cfg.namedCall) this.started.set(0, cfg.namedCall);
    this.fenceOpen = cfg.fenced === true;
  }

  // The scanner's hooks are methods of the region (it is passed as `JsonScanHooks`): a run of openers that turn
  // out to be prose (`<tool><tool>…`) opens a region per opener, and four closures each were most of their cost.
  isCallPath(path: JsonPath): boolean {
    return this.cfg.namedCall !== undefined ? false : (this.cfg.isCallPath?.(path) ?? false);
  }

  onCallMember(call: CallObjectTrack): void {
    this.maybeStart(call);
  }

  onArgsStart(call: CallObjectTrack, index: number): void {
    this.maybeStart(call);
    const s = this.started.get(call.ordinal + this.ordinalBase);
    if (s) this.delta = { index: s.index, from: index };
  }

  onArgsEnd(call: CallObjectTrack, end: number): void {
    const s = this.started.get(call.ordinal + this.ordinalBase);
    if (s && this.delta && this.delta.index === s.index) {
      this.ctx.emit({
        type: "call-args-delta",
        index: s.index,
        text: this.curText.slice(this.delta.from, end),
      });
    }
    this.delta = null;
  }

  feed(text: string, from: number, final: boolean): FeedResult {
    this.curText = text;
    if (this.phase === "value") {
      // The hot path: the middle of a value, chunk after chunk.
      const scanner = this.scanner!;
      const st = scanner.scan(text, from, final);
      if (st === "more") {
        const end = scanner.end;
        this.noteCallEnd(from);
        if (end > from) this.value.push(from === 0 && end === text.length ? text : text.slice(from, end));
        this.flushDelta(end);
        this.more.pos = text.length;
        return this.more;
      }
      return this.afterScan(text, from, st) ?? this.readOn(text, this.scanner!.end, final);
    }
    return this.readOn(text, from, final);
  }

  /**
   * Takes in what a `scan` of the value from `i` read. Returns the result of `feed`, or null when the value
   * is complete and reading goes on after it (phase `trail`, from the scanner's `end`).
   */
  private afterScan(text: string, i: number, st: ScanStatus): FeedResult | null {
    const end = this.scanner!.end;
    this.noteCallEnd(i);
    if (end > i) this.value.push(text.slice(i, end));
    this.flushDelta(end);
    if (st === "more") return { pos: text.length, done: false };
    if (st === "hold") return { pos: end, done: false };
    if (st === "stopped") {
      // The end marker came before the value closed: decode what there is (repair closes it).
      this.finishValue(true, false);
      const after = end + this.cfg.endMarker!.length;
      this.raw += text.slice(end, after);
      return { pos: after, done: true };
    }
    if (this.finishValue(false, true)) return { pos: end, done: false, revert: this.raw };
    this.phase = "trail";
    return null;
  }

  /** Reads on from `from` phase after phase until a phase answers. */
  private readOn(text: string, from: number, final: boolean): FeedResult {
    return readSteps(from, (i) => this.readPhase(text, i, final));
  }

  /** Reads from `i` in the current phase: where to go on (the phase may have changed), or what to answer. */
  private readPhase(text: string, i: number, final: boolean): Step {
    switch (this.phase) {
      case "lead":
        return this.readLead(text, i, final);
      case "value":
        return this.readValue(text, i, final);
      case "trail":
        return this.readTrail(text, i, final);
      case "skip":
        return this.skipNonValue(text, i, final);
    }
  }

  /** Before a value: an opening code fence, the value, `name()` without arguments, or what is no value. */
  private readLead(text: string, i: number, final: boolean): Step {
    const n = text.length;
    let j = i;
    while (j < n && isWs(text.charCodeAt(j))) j++;
    if (j < n && text.startsWith(FENCE, j) && !this.fenceOpen) {
      let k = j + 3;
      while (k < n && /[A-Za-z_]/.test(text[k]!)) k++;
      if (k === n && !final) return this.hold(text, i, j);
      this.fenceOpen = true;
      this.raw += text.slice(i, k);
      i = k;
      return i;
    }
    if (j === n || (!final && n - j < 3 && FENCE.startsWith(text.slice(j)) && !this.fenceOpen)) {
      if (final) return { pos: n, done: false };
      return this.hold(text, i, j);
    }
    const c = text[j]!;
    if (this.valueStart === "*" || this.valueStart.includes(c)) {
      this.raw += text.slice(i, j);
      i = j;
      this.startValue(i);
      this.phase = "value";
      return i;
    }
    if (this.cfg.namedCall && this.cfg.closer && text.startsWith(this.cfg.closer, j)) {
      // `name()` — a call without arguments
      this.raw += text.slice(i, j + this.cfg.closer.length);
      const { index, name } = this.cfg.namedCall;
      this.ctx.endCall(index, { id: "", name, arguments: {} }, this.raw, false);
      return { pos: j + this.cfg.closer.length, done: true };
    }
    if (this.cfg.onNonValue === "revert") return { pos: j, done: false, revert: this.raw + text.slice(i, j) };
    this.raw += text.slice(i, j);
    i = j;
    this.phase = "skip";
    return i;
  }

  /** The value, scanned on from `i` (the hot path of the middle of a value is in `feed`). */
  private readValue(text: string, i: number, final: boolean): Step {
    const r = this.afterScan(text, i, this.scanner!.scan(text, i, final));
    if (r !== null) return r;
    i = this.scanner!.end;
    return i;
  }

  /** After a value: a closing fence, the closer, the end marker, a separator or (multiple) the next value. */
  private readTrail(text: string, i: number, final: boolean): Step {
    const n = text.length;
    let j = i;
    while (j < n && isWs(text.charCodeAt(j))) j++;
    if (j === n) return final ? { pos: i, done: true } : { pos: i, done: false };
    const rest = n - j;
    const fence = this.fenceOpen ? tryMarker(text, j, FENCE, final) : "no";
    if (fence === "yes") {
      this.fenceOpen = false;
      i = j + 3;
      return i;
    }
    const close = tryMarker(text, j, this.cfg.closer, final);
    if (close === "yes") {
      i = j + this.cfg.closer!.length;
      if (!this.cfg.endMarker) return { pos: i, done: true };
      return i;
    }
    const endM = tryMarker(text, j, this.cfg.endMarker, final);
    if (endM === "yes") return { pos: j + this.cfg.endMarker!.length, done: true };
    if (fence === "partial" || close === "partial" || endM === "partial") return { pos: i, done: false };
    const c = text[j]!;
    if (this.cfg.separators?.includes(c)) {
      i = j + 1;
      if (!this.cfg.multiple) return { pos: i, done: true };
      return i;
    }
    if (this.cfg.multiple && this.valueStart.includes(c)) {
      i = j;
      this.startValue(i);
      this.phase = "value";
      return i;
    }
    if (this.cfg.endMarker) {
      // Stray text before the end marker (an extra brace): swallow it when the marker follows closely.
      const idx = text.indexOf(this.cfg.endMarker, j);
      if (idx >= 0 && idx - j <= 64) return { pos: idx + this.cfg.endMarker.length, done: true };
      if (idx < 0 && rest < 64 + this.cfg.endMarker.length && !final) return { pos: i, done: false };
    }
    return { pos: i, done: true };
  }

  /** What is no value, up to the end marker (or closer, or line end), reported as a parse error. */
  private skipNonValue(text: string, i: number, final: boolean): Step {
    const n = text.length;
    const stop = this.cfg.endMarker ?? this.cfg.closer ?? "\n";
    const idx = text.indexOf(stop, i);
    if (idx >= 0) {
      this.raw += text.slice(i, idx + stop.length);
      this.reportError(`${this.cfg.what} is not a JSON value; send the call again as ${this.cfg.example}`);
      return { pos: idx + stop.length, done: true };
    }
    const hold = final ? 0 : partialMarkerSuffix(text, i, stop);
    // What is skipped is quoted in the error only: keep its start, not megabytes of it.
    if (this.raw.length < MAX_SKIPPED_RAW) this.raw += text.slice(i, n - hold);
    return { pos: n - hold, done: false };
  }

  finish(): void {
    if (this.phase === "value" && this.scanner?.callsSettled) {
      this.finishValue(true);
      return;
    }
    const endMarker = this.cfg.endMarker;
    const cut = endMarker && this.phase === "value" ? this.valueRaw.lastIndexOf(endMarker) : -1;
    if (cut >= 0 && endMarker) {
      // The end marker was swallowed by an unclosed string (a missing quote): the call ends there.
      const rest = this.valueRaw.slice(cut + endMarker.length);
      this.valueRaw = this.valueRaw.slice(0, cut);
      this.finishValue(true);
      this.ctx.emit({ type: "content", text: rest });
      return;
    }
    if (this.phase === "trail") return;
    if (this.phase === "value" && this.settledLength > 0) {
      // `[f(a=1), g(`: the complete calls stand, the one cut off is reported truncated (never dropped silently).
      const all = this.valueRaw;
      this.valueRaw = all.slice(0, this.settledLength);
      this.finishValue(true, false, all.slice(this.settledLength));
      return;
    }
    const raw = this.raw + this.valueRaw;
    const indexes = [...this.started.values()].map((s) => s.index);
    const message = this.cutMessage();
    if (indexes.length === 0) this.ctx.emit({ type: "truncated", raw, message });
    for (const index of indexes) this.ctx.emit({ type: "truncated", index, raw, message });
  }

  private cutMessage(): string {
    return `the output ended inside a call (${this.cfg.what} is incomplete), so it was not run; send the complete call as ${this.cfg.example}`;
  }

  /** Whitespace before a possible fence/value is offered again with the next chunk. */
  private hold(_text: string, i: number, _j: number): FeedResult {
    return { pos: i, done: false };
  }

  /** Before the value takes in what the last `scan` from `from` read: where a call in it closed. */
  private noteCallEnd(from: number): void {
    const at = this.scanner!.callEndAt ?? -1;
    if (at >= from) this.settledLength = this.value.length + (at - from);
  }

  private startValue(at: number): void {
    this.valueRaw = "";
    this.settledLength = 0;
    const named = this.cfg.namedCall;
    this.scanner = this.cfg.createScanner(this, this.cfg.endMarker);
    if (named) this.delta = { index: named.index, from: at };
  }

  private ordinalBase = 0;

  private maybeStart(call: CallObjectTrack): void {
    const key = call.ordinal + this.ordinalBase;
    if (this.started.has(key)) return;
    if (this.cfg.startOnArguments && !call.argsOpen && !call.argsClosed) return;
    const members = call.members;
    const name = this.cfg.nameFrom ? this.cfg.nameFrom(members) : members.name;
    if (!name) return;
    this.started.set(key, this.ctx.startCall(name, members.id || undefined));
  }

  private flushDelta(end: number): void {
    const d = this.delta;
    if (!d) return;
    if (end > d.from)
      this.ctx.emit({ type: "call-args-delta", index: d.index, text: this.curText.slice(d.from, end) });
    // The next chunk is offered from index 0 (held-back text first).
    d.from = 0;
  }

  /**
   * Decodes the value just read and emits its calls. Returns true instead, emitting nothing, when `mayRevert`
   * and the value is not a call at all in a region that gives such text back (nothing of it was announced):
   * prose like `[see f(x)]` then comes out exactly as written.
   */
  private finishValue(closedEarly: boolean, mayRevert = false, cutOff?: string): boolean {
    const valueRaw = this.valueRaw;
    this.raw += valueRaw;
    const outcome = this.cfg.decode(valueRaw, this.ctx);
    const base = this.ordinalBase;
    if (mayRevert && base === 0 && this.started.size === 0) {
      // Prose after all: given back as written, with its opener (a fence, a marker) and what follows it.
      if ("error" in outcome) {
        if (this.cfg.revertUndecodable === true && !namesOfferedTool(valueRaw, this.ctx)) return true;
      } else if (
        outcome.items.length === 1 &&
        outcome.items[0]!.kind === "content" &&
        outcome.items[0]!.text.endsWith(valueRaw) &&
        valueRaw !== ""
      ) {
        return true;
      }
    }
    if ("error" in outcome) {
      const message = `${this.cfg.what} is not valid: ${outcome.error}; send the call again as ${this.cfg.example}`;
      this.reportError(message, valueRaw);
    } else {
      outcome.items.forEach((item, k) => {
        const key = base + k;
        const s = this.started.get(key);
        if (item.kind === "call") {
          const started = s ?? this.ctx.startCall(item.name, item.id);
          this.started.set(key, started);
          const call = { id: started.id, name: item.name, arguments: item.arguments };
          this.ctx.endCall(started.index, call, valueRaw, item.repaired || closedEarly);
        } else if (item.kind === "error") {
          this.ctx.emit({
            type: "parse-error",
            ...(s ? { index: s.index } : {}),
            raw: valueRaw,
            message: item.message,
          });
        } else if (!s) {
          this.ctx.emit({ type: item.kind, text: item.text });
        }
      });
      // Calls that began but did not survive decoding are closed with an error; after `cutOff` (the rest of a
      // value the output ended in) they are truncated.
      let truncated = false;
      for (const [key, s] of this.started) {
        if (key >= base + outcome.items.length && cutOff !== undefined) {
          truncated = true;
          this.ctx.emit({
            type: "truncated",
            index: s.index,
            raw: valueRaw + cutOff,
            message: this.cutMessage(),
          });
        } else if (key >= base + outcome.items.length) {
          this.ctx.emit({
            type: "parse-error",
            index: s.index,
            raw: valueRaw,
            message: `${this.cfg.what} could not be read as a call; send it again as ${this.cfg.example}`,
          });
        }
      }
      if (cutOff !== undefined && !truncated)
        this.ctx.emit({ type: "truncated", raw: valueRaw + cutOff, message: this.cutMessage() });
    }
    const decoded = "items" in outcome ? outcome.items.length : 0;
    this.ordinalBase = Math.max(base + decoded, this.maxStarted());
    this.valueRaw = "";
    this.delta = null;
    return false;
  }

  private maxStarted(): number {
    let max = this.ordinalBase;
    for (const key of this.started.keys()) if (key + 1 > max) max = key + 1;
    return max;
  }

  private reportError(message: string, raw = this.raw): void {
    const indexes = [...this.started.entries()]
      .filter(([k]) => k >= this.ordinalBase)
      .map(([, s]) => s.index);
    if (indexes.length === 0) this.ctx.emit({ type: "parse-error", raw, message });
    for (const index of indexes) this.ctx.emit({ type: "parse-error", index, raw, message });
  }
}

/** Is `marker` at `j`: yes, not yet decidable (`partial`, the text ends inside it), or no. */
function tryMarker(text: string, j: number, m: string | undefined, final: boolean): "yes" | "partial" | "no" {
  if (!m) return "no";
  if (text.startsWith(m, j)) return "yes";
  return !final && text.length - j < m.length && m.startsWith(text.slice(j)) ? "partial" : "no";
}

export function jsonScannerFactory(hooks: JsonScanHooks, stopMarker: string | undefined): ValueScanner {
  return new JsonScanner(hooks, stopMarker);
}

/** Does `raw` call one of the offered tools (`name(`)? */
function namesOfferedTool(raw: string, ctx: EngineContext): boolean {
  for (const t of ctx.tools ?? []) {
    let at = raw.indexOf(`${t.name}(`);
    while (at >= 0) {
      const before = at > 0 ? raw.charCodeAt(at - 1) : 32;
      if (!/[\w.]/.test(String.fromCharCode(before))) return true;
      at = raw.indexOf(`${t.name}(`, at + 1);
    }
  }
  return false;
}
