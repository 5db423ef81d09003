import { FilesystemError } from "./filesystem-errors.js";

const MAX_PATTERN_LENGTH = 500;
/** `{a,b}{c,d}…` multiplies; past this many alternatives the pattern is refused rather than expanded. */
const MAX_BRACE_EXPANSIONS = 64;

type Token =
  | { kind: "star" }
  | { kind: "one" }
  | { kind: "literal"; char: string }
  | { kind: "class"; negate: boolean; ranges: Array<[string, string]> };

/** Matches one path segment against a name, `/` never involved. */
type SegmentPattern = Token[] | "globstar";

function invalid(pattern: string, why: string): FilesystemError {
  return new FilesystemError(
    "invalid-path",
    `The name pattern ${JSON.stringify(pattern.slice(0, 100))} ${why}. Use a glob such as "*.ts" or "src/**/*.test.ts".`,
  );
}

/** Expand `{a,b}` alternatives (nesting allowed) into plain patterns. */
function expandBraces(pattern: string, original: string): string[] {
  const open = pattern.indexOf("{");
  if (open === -1) return [pattern];
  let depth = 0;
  const commas: number[] = [];
  let close = -1;
  for (let i = open; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === "{") depth += 1;
    else if (char === "}") {
      depth -= 1;
      if (depth === 0) {
        close = i;
        break;
      }
    } else if (char === "," && depth === 1) commas.push(i);
  }
  if (close === -1) throw invalid(original, 'has an unclosed "{"');
  const bounds = [open, ...commas, close];
  const head = pattern.slice(0, open);
  const tail = pattern.slice(close + 1);
  const results: string[] = [];
  for (let i = 0; i < bounds.length - 1; i++) {
    const alternative = pattern.slice(bounds[i]! + 1, bounds[i + 1]!);
    for (const expanded of expandBraces(head + alternative + tail, original)) {
      results.push(expanded);
      if (results.length > MAX_BRACE_EXPANSIONS) throw invalid(original, "has too many {…} alternatives");
    }
  }
  return results;
}

function tokenize(segment: string): Token[] {
  const tokens: Token[] = [];
  for (let i = 0; i < segment.length; i++) {
    const char = segment[i]!;
    if (char === "*") {
      // Consecutive stars inside a name are one star.
      if (tokens[tokens.length - 1]?.kind !== "star") tokens.push({ kind: "star" });
    } else if (char === "?") {
      tokens.push({ kind: "one" });
    } else if (char === "[") {
      const close = segment.indexOf("]", i + 2);
      if (close === -1) {
        tokens.push({ kind: "literal", char });
        continue;
      }
      let body = segment.slice(i + 1, close);
      const negate = body.startsWith("!") || body.startsWith("^");
      if (negate) body = body.slice(1);
      const ranges: Array<[string, string]> = [];
      const chars = [...body];
      for (let j = 0; j < chars.length; j++) {
        const from = chars[j]!;
        if (chars[j + 1] === "-" && j + 2 < chars.length) {
          ranges.push([from, chars[j + 2]!]);
          j += 2;
        } else {
          ranges.push([from, from]);
        }
      }
      tokens.push({ kind: "class", negate, ranges });
      i = close;
    } else {
      tokens.push({ kind: "literal", char });
    }
  }
  return tokens;
}

function tokenMatches(token: Token, char: string): boolean {
  switch (token.kind) {
    case "one":
      return true;
    case "literal":
      return token.char === char;
    case "class": {
      const inside = token.ranges.some(([from, to]) => char >= from && char <= to);
      return inside !== token.negate;
    }
    default:
      return false;
  }
}

/**
 * Wildcard match in O(name × pattern) worst case: the classic two-pointer algorithm that only ever backtracks to the
 * most recent star. A regex translation would backtrack exponentially on patterns like `*a*a*a*b`, and it would do
 * so synchronously, where no timeout can interrupt it.
 */
function matchSegment(tokens: Token[], text: string): boolean {
  const chars = [...text];
  let t = 0;
  let c = 0;
  let starToken = -1;
  let starChar = 0;
  while (c < chars.length) {
    const token = tokens[t];
    if (token && token.kind !== "star" && tokenMatches(token, chars[c]!)) {
      t += 1;
      c += 1;
    } else if (token?.kind === "star") {
      starToken = t;
      starChar = c;
      t += 1;
    } else if (starToken !== -1) {
      t = starToken + 1;
      starChar += 1;
      c = starChar;
    } else {
      return false;
    }
  }
  while (tokens[t]?.kind === "star") t += 1;
  return t === tokens.length;
}

/** `**` segments match zero or more path segments; dynamic programming keeps it O(segments × pattern segments). */
function matchSegments(pattern: SegmentPattern[], segments: string[]): boolean {
  const memo = new Map<number, boolean>();
  const visit = (p: number, s: number): boolean => {
    const key = p * (segments.length + 1) + s;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    const current = pattern[p];
    if (current === undefined) result = s === segments.length;
    else if (current === "globstar") result = visit(p + 1, s) || (s < segments.length && visit(p, s + 1));
    else result = s < segments.length && matchSegment(current, segments[s]!) && visit(p + 1, s + 1);
    memo.set(key, result);
    return result;
  };
  return visit(0, 0);
}

/** Decides whether an entry matches: given its path relative to the search start (with `/`) and its name. */
export type GlobMatcher = (relativePath: string, name: string) => boolean;

/**
 * Compile a shell-style glob: `*` and `?` within a name, `[abc]`/`[!a-z]`, `{a,b}`, and `**` across directories.
 * A pattern without `/` matches the entry's name; one with `/` matches its path relative to the search start.
 */
export function createGlobMatcher(pattern: string, caseSensitive: boolean): GlobMatcher {
  if (pattern.length === 0 || pattern.length > MAX_PATTERN_LENGTH) {
    throw invalid(pattern, `must be 1–${MAX_PATTERN_LENGTH} characters`);
  }
  const fold = (text: string) => (caseSensitive ? text : text.toLowerCase());
  const alternatives = expandBraces(fold(pattern), pattern).map((expanded) => {
    const byPath = expanded.includes("/");
    const segments: SegmentPattern[] = expanded
      .split("/")
      .filter((segment) => segment.length > 0 && segment !== ".")
      .map((segment) => (byPath && segment === "**" ? "globstar" : tokenize(segment)));
    return { byPath, segments };
  });
  return (relativePath, name) =>
    alternatives.some(({ byPath, segments }) =>
      byPath ? matchSegments(segments, fold(relativePath).split("/")) : matchSegments(segments, [fold(name)]),
    );
}
