/**
 * Multi-character vocabulary pieces learned from the training text by byte-pair-style merges, so sequences get
 * shorter. Merges stay inside one character class — ASCII letters, or punctuation/other symbols — and never touch
 * digits, spaces or newlines: digits stay one token each (copying a number is then copying tokens one for one), and a
 * word tokenizes the same after a space, a quote or a slash, which is what lets a tiny model copy unseen names.
 */

const CHUNK = /[A-Za-z]+|[0-9]|\s|[^A-Za-z0-9\s]+/gu;

/** Characters outside printable ASCII that the text uses: each gets its own token instead of byte fallback. */
export function extraCharacters(texts: Iterable<string>): string[] {
  const found = new Set<string>();
  for (const text of texts)
    for (const c of text) if (c.codePointAt(0)! > 0x7e && !/\s/u.test(c)) found.add(c);
  return [...found].sort();
}

/** Learn up to `count` pieces, most frequent merge first (that order becomes the SentencePiece score order). */
export function learnPieces(texts: Iterable<string>, count: number, specials: readonly string[]): string[] {
  const words = new Map<string, number>();
  const splitter = new RegExp(specials.map((s) => s.replace(/[|[\]\\^$.*+?(){}]/g, "\\$&")).join("|"), "g");
  for (const text of texts) {
    for (const fragment of specials.length > 0 ? text.split(splitter) : [text]) {
      for (const m of fragment.matchAll(CHUNK)) {
        const w = m[0];
        if (w.length < 2 || /^[0-9\s]$/.test(w)) continue;
        words.set(w, (words.get(w) ?? 0) + 1);
      }
    }
  }
  const entries = [...words.entries()]
    .sort((a, b) => (a[0] < b[0] ? -1 : 1))
    .map(([w, n]) => ({ symbols: [...w], n }));
  const pieces: string[] = [];
  while (pieces.length < count) {
    const pairs = new Map<string, number>();
    for (const e of entries) {
      for (let i = 0; i + 1 < e.symbols.length; i++) {
        const key = `${e.symbols[i]}\u0000${e.symbols[i + 1]}`;
        pairs.set(key, (pairs.get(key) ?? 0) + e.n);
      }
    }
    let best: string | undefined;
    let bestN = 1;
    for (const [k, n] of pairs)
      if (n > bestN || (n === bestN && best !== undefined && k < best)) [best, bestN] = [k, n];
    if (best === undefined) break;
    const [a, b] = best.split("\u0000") as [string, string];
    const merged = a + b;
    pieces.push(merged);
    for (const e of entries) {
      const out: string[] = [];
      for (let i = 0; i < e.symbols.length; i++) {
        if (i + 1 < e.symbols.length && e.symbols[i] === a && e.symbols[i + 1] === b) {
          out.push(merged);
          i++;
        } else out.push(e.symbols[i] as string);
      }
      e.symbols = out;
    }
  }
  return pieces;
}
