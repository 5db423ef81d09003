/**
 * Turn free text into an FTS5 query that cannot be a syntax error: each word quoted (so `AND`, `NEAR(`, `*` and quotes
 * are only words), any of them may match, at most 32 distinct words. Undefined when the text has no word at all.
 */
export function toFtsQuery(text: string): string | undefined {
  const words = text.match(/[\p{L}\p{N}_]+/gu) ?? [];
  if (words.length === 0) return undefined;
  return [...new Set(words.map((w) => w.toLowerCase()))]
    .slice(0, 32)
    .map((w) => `"${w}"`)
    .join(" OR ");
}
