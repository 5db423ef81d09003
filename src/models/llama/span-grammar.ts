import type { AgentMessage } from "../../core/agent-message.js";
import { resultToText } from "../../protocols/core/render-helpers.js";

/**
 * Span-copied string arguments: a value is one stretch of what the person wrote, whole words from where it starts to
 * where a phrase may end — the strictest form of copy-constrained arguments (copy-grammar.ts holds words; this holds
 * their order too). It is for a tiny model calling a tool it was never trained on (a `/v1` client's own `search_web`),
 * which knows where a value starts but closes it after its first word ("best" for "best hiking boots", "Toni" for
 * "Toni Morrison") or wanders off into words of its own ("Team the Team for 2026-09-14 = 6:00…").
 *
 * A span starts at any word and ends only where a phrase may end: before punctuation that closes a clause, at the end
 * of the message, or before an English word that starts a new phrase ("to", "with", "at", "that"…). So "search the web
 * for best hiking boots" may give "best hiking boots", "hiking boots" or "boots", never "best"; "remind me to water the
 * plants at 18:00" may give "water the plants". Words keep the text's spelling; only the first word's case may change
 * ("thai" → "Thai", "aapl" → "AAPL"): a model that writes "Team Offsite" for "Team offsite" is held to the latter.
 */

/** The texts a span may come from: the person's messages and tool results, newest last, each its latest part. */
const MAX_TEXTS = 6;
const MAX_TEXT_CHARS = 600;

/** Words after which a phrase starts, so one may end before them. English: the bundled model's language. */
const PHRASE_STARTERS = new Set(
  (
    "a an the to for with at in on into onto from by of about and or but nor that which who whom whose my your his her " +
    "their our its me you him them us it this these those as than then so if when where how what why there here via " +
    "per using under over after before until till since near like without within between through during across " +
    "around against toward towards because while please is are was were be been am do does did can could will would " +
    "being should shall may might must has have had having doing done now today tonight"
  ).split(" "),
);

/** Taken off a word's start and end: quotes and brackets around it, and the punctuation that closes a clause. */
const LEADING = /^[("'[{«“‘¿¡]+/u;
const TRAILING = /[)"'\]}»”’.,;:!?…]+$/u;

export interface SpanWord {
  /** The word as written, without the punctuation around it (empty when it is all punctuation). */
  core: string;
  /** What lies between this word's core and the next one's, as written (spaces, punctuation). */
  after: string;
  /** Whether a value may end with this word. */
  mayEnd: boolean;
}

function messageText(m: AgentMessage): string | undefined {
  if (m.role === "user") return m.content;
  if (m.role === "tool") return resultToText(m.result);
  return undefined;
}

/** The texts a span-copied value may come from (the newest user messages and tool results). */
export function spanTexts(messages: readonly AgentMessage[]): string[] {
  const texts: string[] = [];
  for (const m of messages) {
    const text = messageText(m)?.trim();
    if (text) texts.push(text.length > MAX_TEXT_CHARS ? text.slice(-MAX_TEXT_CHARS) : text);
  }
  return texts.slice(-MAX_TEXTS);
}

/** A text as words: each with what follows it and whether a phrase may end there. */
export function spanWords(text: string): SpanWord[] {
  const words: { core: string; start: number; end: number; closes: boolean }[] = [];
  for (const piece of text.matchAll(/\S+/gu)) {
    const raw = piece[0];
    const lead = LEADING.exec(raw)?.[0].length ?? 0;
    const rest = raw.slice(lead);
    const trail = TRAILING.exec(rest)?.[0].length ?? 0;
    const core = rest.slice(0, rest.length - trail);
    const previous = words.at(-1);
    // Punctuation standing alone ("…", "--") belongs to what lies between words, and closes the word before it.
    if (!core) {
      if (previous) previous.closes = true;
      continue;
    }
    const start = piece.index + lead;
    words.push({ core, start, end: start + core.length, closes: trail > 0 });
  }
  return words.map((word, i) => {
    const next = words[i + 1];
    return {
      core: word.core,
      after: next ? text.slice(word.end, next.start) : "",
      mayEnd: !next || word.closes || PHRASE_STARTERS.has(next.core.toLowerCase()),
    };
  });
}

/** A word as written, in lower case, capitalized and in capitals (each once). */
export function caseVariants(word: string): string[] {
  const lower = word.toLowerCase();
  return [...new Set([word, lower, lower.charAt(0).toUpperCase() + lower.slice(1), word.toUpperCase()])];
}

/** A GBNF literal of text as it stands inside a JSON string (quotes and backslashes escaped). */
function jsonStringLiteral(text: string): string {
  return JSON.stringify(JSON.stringify(text).slice(1, -1));
}

export const SPAN_VALUE_RULE = "sp-value";

/** Whether these texts hold a word a span could copy. */
export function hasSpanWords(texts: readonly string[]): boolean {
  return texts.some((text) => spanWords(text).length > 0);
}

/**
 * The GBNF rules of a span-copied JSON string (quotes included), `sp-value`: never empty. Linear in the texts' words:
 * one rule per word, "this word, then end here (where a phrase may end) or go on to the next". The texts must hold a
 * word (`hasSpanWords`).
 */
export function spanValueRules(texts: readonly string[]): string {
  const rules: string[] = [];
  const starts: string[] = [];
  for (const [t, text] of texts.entries()) {
    const words = spanWords(text);
    for (const [i, word] of words.entries()) {
      const name = `sp-${t}-${i}`;
      // The first word of a value may change case ("thai" → "Thai"); the words after it are copied as written.
      const ways = [
        ...(word.mayEnd ? ['""'] : []),
        ...(i + 1 < words.length ? [`${jsonStringLiteral(word.after)} sp-${t}-${i + 1}`] : []),
      ];
      rules.push(`${name} ::= ${jsonStringLiteral(word.core)} ( ${ways.join(" | ")} )`);
      const first = caseVariants(word.core).filter((variant) => variant !== word.core);
      rules.push(
        `${name}-first ::= ${first.length ? `( ${first.map(jsonStringLiteral).join(" | ")} ) ( ${ways.join(" | ")} ) | ` : ""}${name}`,
      );
      starts.push(`${name}-first`);
    }
  }
  if (!starts.length) throw new Error("span-copied values need a text with a word to copy");
  rules.push(`sp-span ::= ${starts.join(" | ")}`);
  rules.push(`${SPAN_VALUE_RULE} ::= "\\"" sp-span "\\""`);
  return rules.join("\n");
}
