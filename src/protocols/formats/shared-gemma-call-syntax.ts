import type { Tool } from "@modelcontextprotocol/server";
import { coerceArgumentsBySchema } from "../core/coerce-by-schema.js";
import { isWs } from "../core/match-pattern.js";
import { resultToJsonValue } from "../core/render-helpers.js";
import type { EngineContext, FeedResult, Region, StartRule } from "../core/stream-engine.js";
import type { ToolCall, ToolResultItem } from "../types.js";

/**
 * The call syntax Google's Gemma 4 and FunctionGemma share: `call:name{key:value,…}` between a start and an end
 * token, keys bare, strings between a delimiter token (`<|"|>` in Gemma 4, `<escape>` in FunctionGemma), numbers,
 * `true`/`false` and nested `{…}`/`[…]` bare. Only the tokens differ, so one reader and one writer serve both.
 */
export interface GemmaCallTokens {
  callStart: string;
  callEnd: string;
  /** String delimiter (the same token opens and closes a string). */
  quote: string;
  declarationStart: string;
  declarationEnd: string;
  responseStart: string;
  responseEnd: string;
  /** A correct call, quoted in error messages. */
  example: string;
}

const MAX_BARE = 4096;

type Parsed = { ok: true; value: unknown; end: number } | { ok: false; error: string };

/** Reads one value of the syntax from `src` at `i`; nothing is evaluated. */
function parseValue(src: string, i: number, q: string): Parsed {
  let k = i;
  while (k < src.length && isWs(src.charCodeAt(k))) k++;
  if (src.startsWith(q, k)) {
    const close = src.indexOf(q, k + q.length);
    if (close === -1) return { ok: false, error: `a string opened with ${q} is not closed` };
    return { ok: true, value: src.slice(k + q.length, close), end: close + q.length };
  }
  const c = src[k];
  if (c === "{") return parseObject(src, k, q);
  if (c === "[") return parseArray(src, k, q);
  if (c === '"') {
    // A JSON string, for models that slip into JSON quoting.
    let j = k + 1;
    while (j < src.length && src[j] !== '"') j += src[j] === "\\" ? 2 : 1;
    if (j >= src.length) return { ok: false, error: "a quoted string is not closed" };
    try {
      return { ok: true, value: JSON.parse(src.slice(k, j + 1)), end: j + 1 };
    } catch {
      return { ok: true, value: src.slice(k + 1, j), end: j + 1 };
    }
  }
  let j = k;
  while (j < src.length && j - k < MAX_BARE && !",}]".includes(src[j]!) && !src.startsWith(q, j)) j++;
  const t = src.slice(k, j).trim();
  if (t === "") return { ok: false, error: `a value is missing at "${src.slice(k, k + 20)}"` };
  return { ok: true, value: bareValue(t), end: j };
}

/** `true`, `false`, `null`/`None`, a number — or the text itself (a number a double cannot hold stays text). */
function bareValue(t: string): unknown {
  if (t === "true") return true;
  if (t === "false") return false;
  if (t === "null" || t === "None") return null;
  if (/^-?\d+$/.test(t)) {
    const n = Number(t);
    return Number.isSafeInteger(n) ? n : t;
  }
  if (/^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(t)) {
    const n = Number(t);
    return Number.isFinite(n) ? n : t;
  }
  return t;
}

function parseObject(src: string, open: number, q: string): Parsed {
  const obj: Record<string, unknown> = {};
  let i = open + 1;
  for (;;) {
    while (i < src.length && (isWs(src.charCodeAt(i)) || src[i] === ",")) i++;
    if (i >= src.length) return { ok: false, error: "an object is not closed with }" };
    if (src[i] === "}") return { ok: true, value: obj, end: i + 1 };
    let key: string;
    if (src.startsWith(q, i) || src[i] === '"') {
      const k = parseValue(src, i, q);
      if (!k.ok) return k;
      key = String(k.value);
      i = k.end;
      while (i < src.length && isWs(src.charCodeAt(i))) i++;
    } else {
      const colon = src.indexOf(":", i);
      if (colon === -1) return { ok: false, error: `the key at "${src.slice(i, i + 20)}" has no ":"` };
      key = src.slice(i, colon).trim();
      i = colon;
      if (key === "" || /[{}[\],]/.test(key))
        return { ok: false, error: `"${key}" is not a key; write keys as key:value` };
    }
    if (src[i] !== ":") return { ok: false, error: `the key "${key}" is not followed by ":"` };
    const v = parseValue(src, i + 1, q);
    if (!v.ok) return v;
    obj[key] = v.value;
    i = v.end;
  }
}

function parseArray(src: string, open: number, q: string): Parsed {
  const list: unknown[] = [];
  let i = open + 1;
  for (;;) {
    while (i < src.length && (isWs(src.charCodeAt(i)) || src[i] === ",")) i++;
    if (i >= src.length) return { ok: false, error: "a list is not closed with ]" };
    if (src[i] === "]") return { ok: true, value: list, end: i + 1 };
    const v = parseValue(src, i, q);
    if (!v.ok) return v;
    list.push(v.value);
    i = v.end;
  }
}

/** The arguments object `{key:value,…}` of a call (the whole text, braces included). */
export function parseGemmaArguments(
  src: string,
  quote: string,
): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  const r = parseObject(src, src.indexOf("{"), quote);
  if (!r.ok) return r;
  if (src.slice(r.end).trim() !== "") return { ok: false, error: "text follows the closing }" };
  return { ok: true, value: r.value as Record<string, unknown> };
}

/** One value as the templates' `format_argument` writes it (keys bare, strings between the quote token). */
export function formatGemmaValue(value: unknown, quote: string): string {
  if (typeof value === "string") return `${quote}${value}${quote}`;
  if (value === null || value === undefined) return "null";
  if (Array.isArray(value)) return `[${value.map((v) => formatGemmaValue(v, quote)).join(",")}]`;
  if (typeof value === "object")
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}:${formatGemmaValue(v, quote)}`)
      .join(",")}}`;
  return String(value);
}

/** A call as the template writes it: `<start>call:name{k:v,…}<end>` (keys sorted, as `dictsort` does). */
export function renderGemmaCall(c: ToolCall, t: GemmaCallTokens): string {
  const args = Object.entries(c.arguments)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}:${formatGemmaValue(v, t.quote)}`)
    .join(",");
  return `${t.callStart}call:${c.name}{${args}}${t.callEnd}`;
}

/** Results as the template writes them: `response:name{key:value,…}` (a non-object result under `value`). */
export function renderGemmaResults(results: readonly ToolResultItem[], t: GemmaCallTokens): string {
  return results
    .map((r) => {
      const v = resultToJsonValue(r.result);
      const fields =
        typeof v === "object" && v !== null && !Array.isArray(v)
          ? formatGemmaValue(v, t.quote)
          : `{value:${formatGemmaValue(v, t.quote)}}`;
      return `${t.responseStart}response:${r.name}${fields}${t.responseEnd}`;
    })
    .join("");
}

type Schema = Record<string, unknown>;

/** A JSON schema in the declaration syntax of the templates (`format_parameters`): types upper-case, keys bare. */
function formatSchemaProperties(props: Record<string, Schema>, q: string): string {
  return Object.keys(props)
    .sort()
    .map((key) => {
      const s = props[key] ?? {};
      const parts: string[] = [];
      if (typeof s.description === "string") parts.push(`description:${q}${s.description}${q}`);
      const type = String(Array.isArray(s.type) ? s.type[0] : (s.type ?? "string")).toUpperCase();
      if (type === "STRING" && Array.isArray(s.enum)) parts.push(`enum:${formatGemmaValue(s.enum, q)}`);
      if (type === "OBJECT" && typeof s.properties === "object" && s.properties !== null) {
        parts.push(`properties:{${formatSchemaProperties(s.properties as Record<string, Schema>, q)}}`);
        if (Array.isArray(s.required) && s.required.length > 0)
          parts.push(`required:${formatGemmaValue(s.required, q)}`);
      }
      if (type === "ARRAY" && typeof s.items === "object" && s.items !== null) {
        const items = s.items as Schema;
        const itemType = typeof items.type === "string" ? items.type.toUpperCase() : "STRING";
        parts.push(`items:{type:${q}${itemType}${q}}`);
      }
      parts.push(`type:${q}${type}${q}`);
      return `${key}:{${parts.join(",")}}`;
    })
    .join(",");
}

/** One tool as the template declares it: `declaration:name{description:…,parameters:{…}}`. */
export function renderGemmaDeclaration(tool: Tool, t: GemmaCallTokens): string {
  const q = t.quote;
  const schema = tool.inputSchema as Schema;
  const params: string[] = [];
  const props = schema.properties as Record<string, Schema> | undefined;
  if (props && Object.keys(props).length > 0) params.push(`properties:{${formatSchemaProperties(props, q)}}`);
  if (Array.isArray(schema.required) && schema.required.length > 0)
    params.push(`required:${formatGemmaValue(schema.required, q)}`);
  params.push(`type:${q}OBJECT${q}`);
  const description = (tool.description ?? tool.title ?? "").trim();
  return `${t.declarationStart}declaration:${tool.name}{description:${q}${description}${q},parameters:{${params.join(",")}}}${t.declarationEnd}`;
}

type Probe = "yes" | "partial" | "no";

function probe(text: string, at: number, marker: string, final: boolean): Probe {
  if (text.startsWith(marker, at)) return "yes";
  return !final && text.length - at < marker.length && marker.startsWith(text.slice(at)) ? "partial" : "no";
}

/**
 * The arguments of one call, after `<start>call:name{`: read to the matching `}` (braces inside strings do not
 * count), then the end token. The call starts at once (the marker named it); it ends with the decoded arguments,
 * or a parse error, or — cut off by the end of output — truncated.
 */
class GemmaCallRegion implements Region {
  private state: "body" | "trail" = "body";
  private depth = 1;
  /** inside a string: the token that closes it (the quote token, or `"`) */
  private closer: string | null = null;
  private escape = false;
  private body = "{";
  private raw: string;
  private readonly index: number;
  private readonly id: string;

  constructor(
    private readonly ctx: EngineContext,
    private readonly t: GemmaCallTokens,
    opener: string,
    private readonly name: string,
  ) {
    this.raw = opener;
    const started = ctx.startCall(name);
    this.index = started.index;
    this.id = started.id;
  }

  feed(text: string, from: number, final: boolean): FeedResult {
    const n = text.length;
    let i = from;
    if (this.state === "body") {
      const q = this.t.quote;
      let start = i;
      while (i < n) {
        const c = text[i]!;
        if (this.closer === '"') {
          if (this.escape) this.escape = false;
          else if (c === "\\") this.escape = true;
          else if (c === '"') this.closer = null;
          i++;
          continue;
        }
        if (this.closer !== null) {
          const close = text.indexOf(q, i);
          if (close !== -1) {
            i = close + q.length;
            this.closer = null;
            continue;
          }
          // Hold back a possible partial closing token.
          let hold = 0;
          if (!final)
            for (let h = Math.min(q.length - 1, n - i); h > 0; h--)
              if (q.startsWith(text.slice(n - h))) {
                hold = h;
                break;
              }
          i = n - hold;
          this.body += text.slice(start, i);
          this.raw += text.slice(start, i);
          return { pos: i, done: false };
        }
        if (c === "<") {
          const pq = probe(text, i, q, final);
          const pe = probe(text, i, this.t.callEnd, final);
          if (pq === "yes") {
            this.closer = q;
            i += q.length;
            continue;
          }
          if (pe === "yes") {
            // The end token before the arguments closed: they are incomplete.
            this.body += text.slice(start, i);
            this.raw += text.slice(start, i + this.t.callEnd.length);
            this.ctx.emit({
              type: "parse-error",
              index: this.index,
              raw: this.raw,
              message: `the arguments of "${this.name}" end before their closing }; send the call as ${this.t.example}`,
            });
            return { pos: i + this.t.callEnd.length, done: true };
          }
          if (pq === "partial" || pe === "partial") {
            this.body += text.slice(start, i);
            this.raw += text.slice(start, i);
            return { pos: i, done: false };
          }
        } else if (c === '"') this.closer = '"';
        else if (c === "{" || c === "[") this.depth++;
        else if (c === "}" || c === "]") {
          this.depth--;
          if (this.depth === 0) {
            i++;
            this.body += text.slice(start, i);
            this.raw += text.slice(start, i);
            start = i;
            this.state = "trail";
            break;
          }
        }
        i++;
      }
      if (this.state === "body") {
        this.body += text.slice(start, i);
        this.raw += text.slice(start, i);
        return { pos: n, done: false };
      }
    }
    // trail: the end token (whitespace before it is markup too); anything else ends the call without it.
    let j = i;
    while (j < n && isWs(text.charCodeAt(j))) j++;
    if (j === n && !final) return { pos: i, done: false };
    const pe = j < n ? probe(text, j, this.t.callEnd, final) : "no";
    if (pe === "partial") return { pos: i, done: false };
    if (pe === "yes") {
      this.raw += text.slice(i, j + this.t.callEnd.length);
      this.endCall();
      return { pos: j + this.t.callEnd.length, done: true };
    }
    this.endCall();
    return { pos: i, done: true };
  }

  finish(): void {
    if (this.state === "trail") {
      this.endCall();
      return;
    }
    this.ctx.emit({
      type: "truncated",
      index: this.index,
      raw: this.raw,
      message: `the output ended inside the arguments of "${this.name}", so the call was not run; send the complete call as ${this.t.example}`,
    });
  }

  private endCall(): void {
    const parsed = parseGemmaArguments(this.body, this.t.quote);
    if (!parsed.ok) {
      this.ctx.emit({
        type: "parse-error",
        index: this.index,
        raw: this.raw,
        message: `the arguments of "${this.name}" could not be read (${parsed.error}); send the call as ${this.t.example}`,
      });
      return;
    }
    const args = coerceArgumentsBySchema(this.name, parsed.value, this.ctx.tools);
    this.ctx.endCall(this.index, { id: this.id, name: this.name, arguments: args }, this.raw, false);
  }
}

/**
 * A start token not followed by `call:name{`. Up to the end token it is a malformed call (reported); a start token
 * that another start token or the end of output follows instead was mentioned in prose, and is content — unless
 * what follows it is the beginning of `call:name`, cut off by the end of output (truncated).
 */
class MalformedCallRegion implements Region {
  private raw: string;
  private readonly opener: string;

  constructor(
    private readonly ctx: EngineContext,
    private readonly t: GemmaCallTokens,
    opener: string,
  ) {
    this.raw = opener;
    this.opener = opener;
  }

  feed(text: string, from: number, final: boolean): FeedResult {
    const end = text.indexOf(this.t.callEnd, from);
    const next = text.indexOf(this.t.callStart, from);
    if (next !== -1 && (end === -1 || next < end)) {
      return { pos: next, done: true, revert: this.raw + text.slice(from, next) };
    }
    if (end !== -1) {
      this.raw += text.slice(from, end + this.t.callEnd.length);
      this.ctx.emit({
        type: "parse-error",
        raw: this.raw,
        message: `a call must be written call:name{key:value,…}; send it as ${this.t.example}`,
      });
      return { pos: end + this.t.callEnd.length, done: true };
    }
    if (final) {
      this.raw += text.slice(from);
      const rest = this.raw.slice(this.opener.length);
      if (/^\s*(c(a(l(l)?)?)?)?$|^\s*call\s*:\s*[\w.-]*\s*$/.test(rest))
        return { pos: text.length, done: false };
      return { pos: text.length, done: true, revert: this.raw };
    }
    // Hold back only what may begin either token.
    let hold = 0;
    for (const marker of [this.t.callEnd, this.t.callStart])
      for (let h = Math.min(marker.length - 1, text.length - from); h > hold; h--)
        if (marker.startsWith(text.slice(text.length - h))) {
          hold = h;
          break;
        }
    this.raw += text.slice(from, text.length - hold);
    return { pos: text.length - hold, done: false };
  }

  finish(): void {
    this.ctx.emit({
      type: "truncated",
      raw: this.raw,
      message: `the output ended inside a call, so it was not run; send the complete call as ${this.t.example}`,
    });
  }
}

/** Start rules for calls in this syntax: `<start>call:name{…}<end>`, and a bare start token (reported). */
export function gemmaCallRules(t: GemmaCallTokens): StartRule[] {
  const ws = { ws: true } as const;
  return [
    {
      first: t.callStart[0]!,
      pattern: [t.callStart, ws, "call", ws, ":", ws, { ident: "name" }, ws, "{"],
      open: (ctx, m) => new GemmaCallRegion(ctx, t, m.text, m.captures.name!),
    },
    {
      first: t.callStart[0]!,
      pattern: [t.callStart],
      open: (ctx, m) => new MalformedCallRegion(ctx, t, m.text),
    },
  ];
}
