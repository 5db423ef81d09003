/**
 * Bounded look-ahead matching of call-start patterns. A streaming parser must know, at a candidate position
 * near the end of what has arrived, whether the text there *might* still become a marker (then it holds the
 * text back) — regular expressions cannot say "partial", so patterns are small token lists.
 */
export type PatternToken =
  | string
  /** whitespace run (space, tab, CR, LF), at most 64 characters; `min` defaults to 0 */
  | { ws: true; min?: number }
  /** an identifier that may contain dots and dashes (tool names): `[A-Za-z_][\w.-]*`, at most 128 characters */
  | { ident: string }
  /** any run of ASCII letters (fence language), at most 16 */
  | { letters: true }
  /** the first alternative that matches */
  | { alt: PatternToken[][] }
  | { opt: PatternToken[] }
  /** records the current position under this name (e.g. where a JSON body begins) */
  | { mark: string };

export type MatchResult =
  | { status: "match"; end: number; captures: Record<string, string>; marks: Record<string, number> }
  | { status: "partial" }
  | { status: "none" };

const NONE: MatchResult = { status: "none" };
const PARTIAL: MatchResult = { status: "partial" };
const MAX_WS = 64;
const MAX_IDENT = 128;

function isWs(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
function isIdentStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57) || c === 46 || c === 45;
}
function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** Matches `tokens` at `at`. `final` means no more text will come, so running out of text is "none". */
export function matchPattern(
  text: string,
  at: number,
  tokens: readonly PatternToken[],
  final: boolean,
): MatchResult {
  const captures: Record<string, string> = {};
  const marks: Record<string, number> = {};
  const r = matchSeq(text, at, tokens, 0, final, captures, marks, null);
  if (r === -1) return NONE;
  if (r === -2) return PARTIAL;
  return { status: "match", end: r, captures, marks };
}

/** What is left to match after a nested sequence (an `alt` branch, an `opt`): the rest of the enclosing one. */
interface Continuation {
  tokens: readonly PatternToken[];
  ti: number;
  next: Continuation | null;
}

/** Returns the end index, -1 for no match, -2 for "text ended while it still matched". */
function matchSeq(
  text: string,
  pos: number,
  tokens: readonly PatternToken[],
  ti: number,
  final: boolean,
  captures: Record<string, string>,
  marks: Record<string, number>,
  next: Continuation | null,
): number {
  const n = text.length;
  for (let k = ti; k < tokens.length; k++) {
    const tok = tokens[k]!;
    if (typeof tok === "string") {
      const avail = n - pos;
      if (avail >= tok.length) {
        if (!text.startsWith(tok, pos)) return -1;
        pos += tok.length;
      } else {
        if (final || !startsWithRest(tok, text, pos)) return -1;
        return -2;
      }
    } else if ("ws" in tok) {
      const start = pos;
      while (pos < n && isWs(text.charCodeAt(pos)) && pos - start < MAX_WS) pos++;
      if (pos === n && !final && pos - start < MAX_WS) return -2;
      if (pos - start < (tok.min ?? 0)) return -1;
    } else if ("ident" in tok) {
      if (pos >= n) return final ? -1 : -2;
      if (!isIdentStart(text.charCodeAt(pos))) return -1;
      const start = pos;
      while (pos < n && isIdentPart(text.charCodeAt(pos)) && pos - start < MAX_IDENT) pos++;
      if (pos === n && !final && pos - start < MAX_IDENT) return -2;
      captures[tok.ident] = text.slice(start, pos);
    } else if ("mark" in tok) {
      marks[tok.mark] = pos;
    } else if ("letters" in tok) {
      const start = pos;
      while (pos < n && isLetter(text.charCodeAt(pos)) && pos - start < 16) pos++;
      if (pos === n && !final && pos - start < 16) return -2;
    } else if ("alt" in tok) {
      const rest: Continuation = { tokens, ti: k + 1, next };
      let sawPartial = false;
      for (const branch of tok.alt) {
        const r = matchSeq(text, pos, branch, 0, final, captures, marks, rest);
        if (r >= 0) return r;
        if (r === -2) sawPartial = true;
      }
      return sawPartial ? -2 : -1;
    } else {
      const withOpt = matchSeq(text, pos, tok.opt, 0, final, captures, marks, { tokens, ti: k + 1, next });
      if (withOpt >= 0 || withOpt === -2) return withOpt;
      return matchSeq(text, pos, tokens, k + 1, final, captures, marks, next);
    }
  }
  return next === null ? pos : matchSeq(text, pos, next.tokens, next.ti, final, captures, marks, next.next);
}

/** Does `tok` start with `text[pos..]` (the text ends inside the literal)? Compares in place, no substring. */
function startsWithRest(tok: string, text: string, pos: number): boolean {
  const len = text.length - pos;
  for (let k = 0; k < len; k++) if (tok.charCodeAt(k) !== text.charCodeAt(pos + k)) return false;
  return true;
}

/** Length of the longest suffix of `text[from..]` that is a proper prefix of `marker` (for hold-back). */
export function partialMarkerSuffix(text: string, from: number, marker: string): number {
  const n = text.length;
  const max = Math.min(marker.length - 1, n - from);
  // Compared in place: this runs on every chunk inside reasoning and tagged values.
  next: for (let len = max; len > 0; len--) {
    const start = n - len;
    for (let k = 0; k < len; k++) if (text.charCodeAt(start + k) !== marker.charCodeAt(k)) continue next;
    return len;
  }
  return 0;
}

export { isIdentPart, isIdentStart, isWs };
