/** Abbreviations whose period does not end a sentence ("… dates, e.g. from …"). */
const ABBREVIATION = /\b(?:e\.g|i\.e|etc|vs|cf|approx|incl|no)\.$/i;

/**
 * The first sentence of a tool description, at most `max` characters (cut with "…"): enough to recognise a tool in a
 * list. A period ends the sentence only when followed by white space and not part of an abbreviation.
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
  return sentence.length > max ? `${sentence.slice(0, max - 1)}…` : sentence;
}
