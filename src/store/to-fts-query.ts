/** The distinct words of free text (letters, digits, `_`), lower-cased, at most 32: what memory search looks for. */
export function searchWords(text: string): string[] {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  return [...new Set(words.map((w) => w.toLowerCase()))].slice(0, 32);
}

/**
 * Turn free text into an FTS5 query that cannot be a syntax error: each word quoted (so `AND`, `NEAR(`, `*` and quotes
 * are only words), any of them may match, at most 32 distinct words. Undefined when the text has no word at all.
 */
export function toFtsQuery(text: string): string | undefined {
  const words = searchWords(text);
  if (words.length === 0) return undefined;
  return words.map((w) => `"${w}"`).join(" OR ");
}
