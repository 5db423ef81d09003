import { readCallArguments } from "../decode-call-arguments.js";
import { coerceArgumentsBySchema } from "./coerce-by-schema.js";
import { isWs, partialMarkerSuffix } from "./match-pattern.js";
import { readSteps, type Step } from "./read-steps.js";
import type { EngineContext, FeedResult, Region } from "./stream-engine.js";
import { decodeTextValue, propertySchema } from "./text-value-codec.js";

/**
 * XML-ish tool calls whose arguments are tagged text, not JSON: Qwen3-Coder
 * (`<tool_call><function=f><parameter=k>v</parameter></function></tool_call>`), MiniMax-M2
 * (`<invoke name="f"><parameter name="k">v</parameter></invoke>`), GLM-4.5 (`<tool_call>f<arg_key>k</arg_key>
 * <arg_value>v</arg_value></tool_call>`). One region reads a whole call section; the syntax says which tags
 * play which part.
 */

/** A tag that carries a name: `<function=` … `>`. */
export interface NameTag {
  prefix: string;
  /** ends the name; consumed */
  end: string;
  /** the name from the raw text between prefix and end (quotes stripped, trimmed); null if it is not a name */
  clean(raw: string): string | null;
}

export interface TaggedCallSyntax {
  /** Closes the section the region was opened with; absent when `callClose` ends the region (GLM). */
  sectionClose?: string;
  /** The section opener (`<tool_call>`): a forgotten closing tag counts as closed when another section follows. */
  sectionOpen: string;
  /** How each call opens inside the section; absent when the section opener is followed by the name (GLM). */
  callOpen?: NameTag;
  /** Without `callOpen`: the name runs from the opener to the first of these (not consumed). */
  headEnds?: readonly string[];
  callClose: string;
  paramOpen: NameTag;
  /** Opens the value after the key tag (GLM `<arg_value>`). */
  valueOpen?: string;
  paramClose: string;
  /** Format-specific unwrapping of a raw value (e.g. the newlines a template puts around it). */
  unwrapValue(raw: string): string;
  /**
   * The parameter tag itself says its value is a plain string (DeepSeek V3.2's `string="true"`), given the raw
   * text between `paramOpen.prefix` and its end: without a schema the value is then kept as written.
   */
  isStringParam?(rawTag: string): boolean;
  /**
   * A value whose argument has no schema (no tools offered, or a key the tool does not declare), as the format's
   * reference parser reads it: `text` keeps the text (only `null` is null: vLLM and Ollama for Qwen3-Coder and
   * MiniMax-M2), `json` reads JSON-looking text as JSON (vLLM for GLM). With a schema, values follow it.
   */
  untypedValues: "text" | "json";
  /** A correct call in this format, quoted in error messages. */
  example: string;
  /** Names the body in messages, e.g. "the <tool_call> block". */
  what: string;
}

export interface TaggedCallRegionOptions {
  /** Text that opened the region (given back as content on revert). */
  opener: string;
  /** The opener was a bare call tag (`<function=f>`): the call is already named, no section is required. */
  bareCall?: string;
  /** A code fence preceded the opener: a closing fence after the section is consumed. */
  fenced?: boolean;
  /** A `{` right after the opener is JSON (models that slip into Hermes style): hand over to this region. */
  jsonFallback?(ctx: EngineContext, opener: string): Region;
}

type State = "head" | "between" | "callName" | "call" | "key" | "valueOpen" | "value" | "fence";

interface Terminator {
  marker: string;
  follows: readonly string[];
  /** `next`: the next parameter's opener ends an unclosed value; it is not consumed. */
  action: "param" | "call" | "section" | "next";
}

const MAX_NAME = 256;
const MAX_FOLLOW_WS = 64;
const FENCE = "```";
const HEAD_NAME_OK = /^[^\s<>"'`{}()[\],;=]+$/;

type Probe = "yes" | "partial" | "no";

function skipWs(text: string, i: number): number {
  let j = i;
  while (j < text.length && isWs(text.charCodeAt(j))) j++;
  return j;
}

function probe(text: string, at: number, marker: string, final: boolean): Probe {
  if (text.startsWith(marker, at)) return "yes";
  const rest = text.length - at;
  return !final && rest < marker.length && marker.startsWith(text.slice(at)) ? "partial" : "no";
}

export class TaggedCallRegion implements Region {
  private state: State;
  private raw: string;
  private delegate: Region | null = null;
  private calls = 0;
  private current: { index: number; id: string; name: string; rawFrom: number } | null = null;
  private pending: { name: string; rawFrom: number } | null = null;
  private params: [string, string][] = [];
  /** keys whose tag marked them plain strings (`isStringParam`) */
  private stringKeys = new Set<string>();
  private junk = "";
  private key = "";
  private value = "";
  private repaired = false;
  private readonly terminators: Terminator[];
  /**
   * What ends a value its tag marked a plain string (`isStringParam`): only the parameter's own closing tag (or,
   * recovering a missing one, the next parameter's tag) — call and section closers inside it are its text.
   */
  private readonly stringTerminators: Terminator[];
  /** The output ended inside a string value: it is read once more as if it were not one (see `finish`). */
  private stringsRelaxed = false;
  /** Tags that end a name even when its end marker is missing (a `<` elsewhere may be part of a GLM key). */
  private readonly nameStops: string[];
  /** per terminator, its next index in the text being scanned (reused between calls) */
  private readonly next: number[] = [];

  constructor(
    private readonly ctx: EngineContext,
    private readonly syn: TaggedCallSyntax,
    private readonly opts: TaggedCallRegionOptions,
  ) {
    this.raw = opts.opener;
    const s = syn;
    const paramFollows = [s.paramOpen.prefix, s.callClose, ...(s.sectionClose ? [s.sectionClose] : [])];
    const callFollows = s.callOpen
      ? [s.callOpen.prefix, ...(s.sectionClose ? [s.sectionClose] : [])]
      : [s.sectionOpen];
    this.terminators = [
      { marker: s.paramClose, follows: paramFollows, action: "param" },
      { marker: s.callClose, follows: callFollows, action: "call" },
      // As the reference parsers read it: a value left unclosed ends where the next parameter opens.
      { marker: s.paramOpen.prefix, follows: [], action: "next" },
    ];
    this.nameStops = [
      s.paramOpen.prefix,
      s.paramClose,
      s.callClose,
      s.sectionOpen,
      ...(s.valueOpen ? [s.valueOpen] : []),
      ...(s.sectionClose ? [s.sectionClose] : []),
    ];
    this.stringTerminators = this.terminators.filter((t) => t.action === "param" || t.action === "next");
    if (s.sectionClose && s.sectionClose !== s.callClose) {
      this.terminators.push({ marker: s.sectionClose, follows: [s.sectionOpen], action: "section" });
    }
    if (opts.bareCall !== undefined) {
      this.beginCall(opts.bareCall);
      this.state = "call";
    } else {
      this.state = s.callOpen ? "between" : "head";
    }
  }

  feed(text: string, from: number, final: boolean): FeedResult {
    if (this.delegate) return this.delegate.feed(text, from, final);
    return readSteps(from, (i) => this.step(text, i, final));
  }

  /** Reads from `i` in the current state: where to go on (the state may have changed), or what to answer. */
  private step(text: string, i: number, final: boolean): Step {
    switch (this.state) {
      case "head":
        return this.readHead(text, i, final);
      case "between":
        return this.readBetweenCalls(text, i, final);
      case "callName":
        return this.readCallName(text, i, final);
      case "call":
        return this.readCallBody(text, i, final);
      case "key":
        return this.readKey(text, i, final);
      case "valueOpen":
        return this.readValueOpen(text, i, final);
      case "value":
        return this.readValue(text, i, final);
      case "fence":
        return this.readClosingFence(text, i, final);
    }
  }

  /** GLM: the name follows the section opener directly (a newline at most), up to a newline or the first key. */
  private readHead(text: string, i: number, final: boolean): Step {
    const n = text.length;
    let j = i;
    while (j < n && (text[j] === "\n" || text[j] === "\r")) j++;
    if (j === n) {
      i = this.take(text, i, j);
      return { pos: n, done: false };
    }
    if (text[j] === "{" && this.opts.jsonFallback) return this.handOver(text, i, j, final);
    const found = this.findHeadEnd(text, j);
    if (found === -1 || (found === -2 && final && !HEAD_NAME_OK.test(text.slice(j)))) {
      return { pos: i, done: false, revert: this.raw };
    }
    if (found === -2) {
      // the name so far is plausible; wait for its end (bounded by MAX_NAME)
      i = this.take(text, i, j);
      return { pos: j, done: false };
    }
    const name = text.slice(j, found).trim();
    i = this.take(text, i, found);
    this.beginCall(name);
    this.state = "call";
    return i;
  }

  /** Between calls of a section: the next call, the section closer, or the end of the calls. */
  private readBetweenCalls(text: string, i: number, final: boolean): Step {
    const syn = this.syn;
    const n = text.length;
    i = this.take(text, i, skipWs(text, i));
    if (i === n) return final && this.calls > 0 ? this.endSection(text, i, final) : { pos: n, done: false };
    const sc = syn.sectionClose ? probe(text, i, syn.sectionClose, final) : "no";
    if (sc === "yes") {
      i = this.take(text, i, i + syn.sectionClose!.length);
      return this.endSection(text, i, final);
    }
    const co = probe(text, i, syn.callOpen!.prefix, final);
    if (co === "yes") {
      i = this.take(text, i, i + syn.callOpen!.prefix.length);
      this.state = "callName";
      return i;
    }
    if (sc === "partial" || co === "partial") return { pos: i, done: false };
    if (this.calls === 0 && text[i] === "{" && this.opts.jsonFallback)
      return this.handOver(text, i, i, final);
    // Not a call after all (prose that mentions the tag), or prose after the calls.
    if (this.calls === 0) return { pos: i, done: false, revert: this.raw };
    return this.endSection(text, i, final);
  }

  /** The name in a call tag (`<function=` … `>`). */
  private readCallName(text: string, i: number, final: boolean): Step {
    const syn = this.syn;
    const r = this.readName(text, i, syn.callOpen!, final);
    if (r === "hold") return { pos: i, done: false };
    if (r === null) {
      if (this.calls === 0) return { pos: i, done: false, revert: this.raw };
      this.ctx.emit({
        type: "parse-error",
        raw: this.raw,
        message: `${syn.callOpen!.prefix} must be followed by a tool name and ${syn.callOpen!.end}; send the call as ${syn.example}`,
      });
      return this.endSection(text, i, final);
    }
    const start = this.raw.length - syn.callOpen!.prefix.length;
    i = this.take(text, i, r.end);
    this.beginCall(r.name, start);
    this.state = "call";
    return i;
  }

  /** Inside a call: a parameter tag, the call or section closer, or text kept aside (JSON arguments). */
  private readCallBody(text: string, i: number, final: boolean): Step {
    const syn = this.syn;
    const n = text.length;
    const ws = skipWs(text, i);
    // Inside JSON arguments written without tags, whitespace is theirs (wherever a chunk ended).
    if (this.junk !== "") this.junk += text.slice(i, ws);
    i = this.take(text, i, ws);
    if (i === n) {
      if (final && this.unconfirmed()) return { pos: i, done: false, revert: this.raw };
      if (final && this.bodyComplete()) {
        // Every parameter closed, only the closing tags missing: a call, as in every format.
        this.repaired = true;
        this.endCall();
        return { pos: n, done: true };
      }
      return { pos: n, done: false };
    }
    const po = probe(text, i, syn.paramOpen.prefix, final);
    if (po === "yes") {
      this.confirm();
      i = this.take(text, i, i + syn.paramOpen.prefix.length);
      this.state = "key";
      return i;
    }
    const cc = probe(text, i, syn.callClose, final);
    if (cc === "yes") {
      this.confirm();
      i = this.take(text, i, i + syn.callClose.length);
      this.endCall();
      if (!syn.sectionClose) return this.endSection(text, i, final);
      this.state = "between";
      return i;
    }
    const sc = syn.sectionClose ? probe(text, i, syn.sectionClose, final) : "no";
    if (sc === "yes") {
      this.confirm();
      i = this.take(text, i, i + syn.sectionClose!.length);
      this.repaired = true;
      this.endCall();
      return this.endSection(text, i, final);
    }
    if (po === "partial" || cc === "partial" || sc === "partial") return { pos: i, done: false };
    // A bare `<function=f>` or `<tool_call>f` followed by prose was a mention, not a call.
    if (this.unconfirmed() && text[i] !== "{") return { pos: i, done: false, revert: this.raw };
    this.confirm();
    // Text that is no tag: kept aside (it may be JSON arguments) up to the next `<`.
    const lt = text.indexOf("<", i + 1);
    const to = lt === -1 ? n : lt;
    this.junk += text.slice(i, to);
    i = this.take(text, i, to);
    if (i === n) return { pos: n, done: false };
    return i;
  }

  /** The parameter name in its tag. */
  private readKey(text: string, i: number, final: boolean): Step {
    const syn = this.syn;
    const r = this.readName(text, i, syn.paramOpen, final);
    if (r === "hold") return { pos: i, done: false };
    if (r === null) {
      this.junk += syn.paramOpen.prefix;
      this.state = "call";
      return i;
    }
    i = this.take(text, i, r.end);
    this.key = r.name;
    if (syn.isStringParam?.(r.raw)) this.stringKeys.add(r.name);
    else this.stringKeys.delete(r.name);
    this.value = "";
    this.state = syn.valueOpen ? "valueOpen" : "value";
    return i;
  }

  /** The tag that opens a value after its key (GLM `<arg_value>`); a missing one is repaired. */
  private readValueOpen(text: string, i: number, final: boolean): Step {
    const syn = this.syn;
    const n = text.length;
    let j = i;
    while (j < n && isWs(text.charCodeAt(j))) j++;
    if (j === n) return { pos: i, done: false };
    const vo = probe(text, j, syn.valueOpen!, final);
    if (vo === "partial") return { pos: i, done: false };
    if (vo === "yes") i = this.take(text, i, j + syn.valueOpen!.length);
    else this.repaired = true;
    this.state = "value";
    return i;
  }

  /** A parameter value, up to the terminator that really ends it (see scanValue). */
  private readValue(text: string, i: number, final: boolean): Step {
    const syn = this.syn;
    const inString = !this.stringsRelaxed && this.stringKeys.has(this.key);
    const r = this.scanValue(text, i, final, inString ? this.stringTerminators : this.terminators);
    this.value += text.slice(i, r.pos);
    i = this.take(text, i, r.pos);
    if (!r.term) return { pos: i, done: false };
    // A value cut short by the next parameter's tag loses the line break that stood before the tag.
    this.params.push([this.key, r.term.action === "next" ? this.value.trimEnd() : this.value]);
    this.value = "";
    if (r.term.action === "next") {
      this.repaired = true;
      this.state = "call";
      return i;
    }
    i = this.take(text, i, i + r.term.marker.length);
    if (r.term.action === "param") {
      this.state = "call";
      return i;
    }
    this.repaired = true;
    this.endCall();
    if (r.term.action === "section" || !syn.sectionClose) return this.endSection(text, i, final);
    this.state = "between";
    return i;
  }

  /** After a fenced section: its closing fence, if any. */
  private readClosingFence(text: string, i: number, final: boolean): Step {
    const n = text.length;
    let j = i;
    while (j < n && isWs(text.charCodeAt(j))) j++;
    if (j === n) return final ? { pos: i, done: true } : { pos: i, done: false };
    const f = probe(text, j, FENCE, final);
    if (f === "partial") return { pos: i, done: false };
    if (f === "yes") i = this.take(text, i, j + FENCE.length);
    return { pos: i, done: true };
  }

  /** Appends `text[from..to)` to the raw text of the region and returns `to`. */
  private take(text: string, from: number, to: number): number {
    this.raw += text.slice(from, to);
    return to;
  }

  finish(): void {
    if (this.delegate) {
      this.delegate.finish();
      return;
    }
    if (this.state === "fence" || (this.state === "between" && this.calls > 0)) return;
    if (this.state === "value" && !this.stringsRelaxed && this.stringKeys.has(this.key)) {
      // A string value never closed: its parameter tag is missing, so the closers in it were structure after all
      // (as in formats without string values). Read it again that way.
      this.stringsRelaxed = true;
      const text = this.value;
      this.value = "";
      this.raw = this.raw.slice(0, this.raw.length - text.length);
      const r = this.feed(text, 0, true);
      if (r.done) {
        if (r.pos < text.length) this.ctx.emit({ type: "content", text: text.slice(r.pos) });
        return;
      }
      this.finish();
      return;
    }
    const cur = this.current;
    const message = `the output ended inside a call (${this.syn.what} is incomplete), so it was not run; send the complete call as ${this.syn.example}`;
    if (cur)
      this.ctx.emit({ type: "truncated", index: cur.index, raw: this.raw.slice(cur.rawFrom), message });
    else this.ctx.emit({ type: "truncated", raw: this.raw, message });
  }

  private handOver(text: string, i: number, j: number, final: boolean): FeedResult {
    this.raw += text.slice(i, j);
    this.delegate = this.opts.jsonFallback!(this.ctx, this.raw);
    return this.delegate.feed(text, j, final);
  }

  private endSection(text: string, i: number, final: boolean): FeedResult {
    if (!this.opts.fenced) return { pos: i, done: true };
    this.state = "fence";
    return this.feed(text, i, final);
  }

  /** Index of the head's end marker, -1 if the text cannot be a name, -2 if more text is needed. */
  private findHeadEnd(text: string, j: number): number {
    const ends = this.syn.headEnds ?? ["\n"];
    const n = text.length;
    const limit = Math.min(n, j + MAX_NAME);
    for (let k = j; k < limit; k++) {
      const c = text[k]!;
      for (const e of ends) if (c === e[0] && text.startsWith(e, k)) return k === j ? -1 : k;
      if (c === "<") {
        // possibly the start of an end marker still arriving
        if (ends.some((e) => e.startsWith(text.slice(k)))) return -2;
        return -1;
      }
      if (!HEAD_NAME_OK.test(c) && c !== "\r") return -1;
    }
    return limit === n ? -2 : -1;
  }

  private readName(
    text: string,
    i: number,
    tag: NameTag,
    final: boolean,
  ): { name: string; raw: string; end: number } | "hold" | null {
    const n = text.length;
    const limit = Math.min(n, i + MAX_NAME);
    for (let k = i; k < limit; k++) {
      if (text.startsWith(tag.end, k)) {
        const raw = text.slice(i, k);
        const name = tag.clean(raw);
        return name ? { name, raw, end: k + tag.end.length } : null;
      }
      const c = text[k];
      if (c === "\n") return null;
      if (c === "<") {
        if (!final && n - k < tag.end.length && tag.end.startsWith(text.slice(k))) return "hold";
        // A key may contain `<` (GLM `<arg_key>a<b</arg_key>`) when its end marker is a closing tag; other
        // markup there means the end marker is missing.
        if (!tag.end.startsWith("</") || this.nameStops.some((m) => text.startsWith(m, k))) return null;
        if (!final && this.nameStops.some((m) => n - k < m.length && m.startsWith(text.slice(k))))
          return "hold";
      }
    }
    // Out of text: wait for more (at the end of output the open call is reported as truncated).
    return limit === n ? "hold" : null;
  }

  /**
   * Finds where the value ends: a closing tag counts only when what follows it (after whitespace) is more
   * structure, or the end of output — so values may contain the format's own closing tags.
   */
  private scanValue(
    text: string,
    i: number,
    final: boolean,
    terminators: readonly Terminator[],
  ): { pos: number; term: Terminator | null } {
    const n = text.length;
    const next = this.next;
    next.length = terminators.length;
    for (let t = 0; t < terminators.length; t++) next[t] = text.indexOf(terminators[t]!.marker, i);
    for (;;) {
      let best = -1;
      for (let t = 0; t < next.length; t++) {
        const p = next[t]!;
        if (p >= 0 && (best === -1 || p < next[best]!)) best = t;
      }
      if (best === -1) {
        let hold = 0;
        if (!final)
          for (const t of terminators) hold = Math.max(hold, partialMarkerSuffix(text, i, t.marker));
        return { pos: n - hold, term: null };
      }
      const term = terminators[best]!;
      const idx = next[best]!;
      const wsFrom = idx + term.marker.length;
      let k = wsFrom;
      while (k < n && isWs(text.charCodeAt(k)) && k - wsFrom < MAX_FOLLOW_WS) k++;
      let verdict: Probe = "no";
      if (term.follows.length === 0) verdict = "yes";
      else if (k === n && k - wsFrom < MAX_FOLLOW_WS) verdict = final ? "yes" : "partial";
      else if (k - wsFrom < MAX_FOLLOW_WS) {
        for (const f of term.follows) {
          const p = probe(text, k, f, final);
          if (p === "yes") {
            verdict = "yes";
            break;
          }
          if (p === "partial") verdict = "partial";
        }
      }
      if (verdict === "yes") return { pos: idx, term };
      if (verdict === "partial") return { pos: idx, term: null };
      next[best] = text.indexOf(term.marker, idx + 1);
    }
  }

  /**
   * A call is named; its call-start waits for the first tag inside it (or JSON arguments), so a name-only
   * opener that turns out to be prose can still be given back as content.
   */
  private beginCall(name: string, rawFrom = 0): void {
    this.pending = { name, rawFrom };
    this.params = [];
    this.stringKeys.clear();
    this.junk = "";
    this.repaired = false;
  }

  private confirm(): void {
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    const { index, id } = this.ctx.startCall(p.name);
    this.current = { index, id, name: p.name, rawFrom: p.rawFrom };
  }

  /** At the end of output: the open call has all its parameters closed (or JSON arguments that parse). */
  private bodyComplete(): boolean {
    if (this.current === null && this.pending === null) return false;
    if (this.pending !== null && this.params.length === 0 && this.junk.trim() === "") return false;
    const junk = this.junk.trim();
    if (junk === "") return true;
    if (this.params.length > 0) return false;
    try {
      JSON.parse(junk);
      return true;
    } catch {
      return false;
    }
  }

  /** The first call of a region opened without a section tag has shown nothing call-like yet. */
  private unconfirmed(): boolean {
    return (
      this.pending !== null && this.calls === 0 && (this.opts.bareCall !== undefined || !this.syn.callOpen)
    );
  }

  private endCall(): void {
    this.confirm();
    const cur = this.current;
    if (!cur) return;
    this.current = null;
    this.calls++;
    const raw = this.raw.slice(cur.rawFrom);
    let args: Record<string, unknown> = {};
    let repaired = this.repaired;
    const junk = this.junk.trim();
    if (this.params.length === 0 && junk !== "") {
      // Arguments written as one JSON object instead of tags.
      const d = readCallArguments(junk, `the arguments of "${cur.name}"`);
      if (!d.ok) {
        this.ctx.emit({
          type: "parse-error",
          index: cur.index,
          raw,
          message: `${d.error}; send the call as ${this.syn.example}`,
        });
        return;
      }
      args = coerceArgumentsBySchema(cur.name, d.value, this.ctx.tools);
      repaired = true;
    } else {
      if (junk !== "") repaired = true;
      for (const [key, value] of this.params) {
        const text = this.syn.unwrapValue(value);
        const schema = propertySchema(this.ctx.tools, cur.name, key);
        args[key] =
          schema !== undefined
            ? decodeTextValue(text, schema)
            : this.stringKeys.has(key)
              ? text
              : this.syn.untypedValues === "text"
                ? text.trim() === "null"
                  ? null
                  : text
                : decodeTextValue(text, schema);
      }
    }
    this.ctx.endCall(cur.index, { id: cur.id, name: cur.name, arguments: args }, raw, repaired);
  }
}

/** Strips the quotes and spaces around a name written as an attribute (`"f"`, `'f'`, `f`). */
export function cleanAttributeName(raw: string): string | null {
  let s = raw.trim();
  if (s.length >= 2 && (s[0] === '"' || s[0] === "'") && s[s.length - 1] === s[0]) s = s.slice(1, -1).trim();
  return s === "" || /[\s"'<>]/.test(s) ? null : s;
}
