/** Abbreviations whose period does not end a sentence ("… dates, e.g. from …"). */
const ABBREVIATION = /\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no)\.$/i;

/** Where a sentence's details or examples start (a colon, a semicolon, "e.g.", a parenthesis): what comes before is a
 * whole statement on its own. */
const DETAILS_START = /[:;]\s|,?\s+(?:e\.g\.|i\.e\.|for example|such as)\s|\s\(/i;

/**
 * The first sentence of a tool description, at most `max` characters: enough to recognise a tool in a list. A period
 * ends the sentence only when followed by white space and not part of an abbreviation. A sentence too long loses its
 * details and examples (after ": ", "; ", ", e.g.", " (") first; one still too long is cut at a word, with "…".
 */
export function firstSentence(text: string | undefined, max = 100): string {
  const line = (text ?? "").split("\n")[0] ?? "";
  let end = line.length;
  for (const match of line.matchAll(/\.(?=\s)/g)) {
    const upTo = line.slice(0, match.index + 1);
    if (!ABBREVIATION.test(upTo)) {
      end = match.index + 1;
      break;
    }
  }
  const sentence = line.slice(0, end).trim();
  if (sentence.length <= max) return sentence;
  const details = DETAILS_START.exec(sentence)?.index;
  if (details !== undefined && details > 0 && details < max) return `${sentence.slice(0, details)}.`;
  const word = sentence.lastIndexOf(" ", max - 1);
  return `${sentence.slice(0, word > max / 2 ? word : max - 1)}…`;
}
