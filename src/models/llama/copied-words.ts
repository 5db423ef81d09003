import type { Tool } from "@modelcontextprotocol/server";
import type { AgentMessage } from "../../core/agent-message.js";
import { resultToText } from "../../protocols/core/render-helpers.js";
import { schemaText } from "./copy-grammar.js";

/**
 * Copied words in answers: when a tiny model, answering after a tool result, begins a word of that result or of the
 * request it answers, the word is written out whole. A 10M-parameter model that read "plinth3390" in a note starts
 * copying it and drifts ("pliliz3390", "plied3390"); asked the time in Caracas, it answers "… in Caracao". Nothing else
 * is held: the model still chooses every word it starts, where it stops, and what it says around the value.
 *
 * Only words the model cannot be trusted to write are held: words of the latest request and of the tool results since
 * it, of four characters or more that hold a letter and a digit, "/" or "_", or begin with a capital — codes, zones,
 * names ("plinth3390", "America/Caracas", "Kowalski"; not numbers) — and that the model's own prompt text (the system
 * messages, the offered tools' names and prose) does not use. Plain lower-case words ("note", "code") are never held:
 * the model's "nothing" must not become "note". A word is begun once the model has written, at the start of its answer or after
 * a space, a newline, a quote or an opening bracket, the shortest prefix of three characters or more that no other
 * held word shares; the rest of the word is then added as if the model had written it, and where the model's next token
 * would go on with the word, one that cannot is taken instead ("Australia/Hobart", never "Australia/Hobart_Harbour":
 * llama-text-turn.ts).
 */
export class CopiedWords {
  /** Trigger text (a boundary and the word's unique prefix) → the rest of the word. */
  readonly #rests = new Map<string, string>();
  /** A word's unique prefix with nothing before it → the rest of the word: where the answer begins with it. */
  readonly #bare = new Map<string, string>();

  private constructor(words: readonly string[]) {
    for (const [word, prefix] of uniquePrefixes(words)) {
      for (const boundary of BOUNDARIES) this.#rests.set(boundary + prefix, word.slice(prefix.length));
      this.#bare.set(prefix, word.slice(prefix.length));
    }
  }

  /**
   * The words of the latest request and the tool results since it that a tiny model is held to when it begins one, or
   * undefined when there are none (no tool result since the latest request: the answer quotes nothing; or nothing in
   * them the model does not already write).
   */
  static from(messages: readonly AgentMessage[], tools: readonly Tool[]): CopiedWords | undefined {
    const latest = messages.findLastIndex((m) => m.role === "user");
    const results = messages
      .slice(latest + 1)
      .flatMap((m) => (m.role === "tool" ? [resultToText(m.result)] : []))
      .join("\n")
      .slice(-MAX_RESULT_CHARS);
    if (!results) return undefined;
    const request = messages[latest];
    const sources =
      request?.role === "user" ? `${request.content.slice(0, MAX_RESULT_CHARS)}\n${results}` : results;
    const own = new Set<string>();
    const ownText = [
      ...messages.flatMap((m) => (m.role === "system" ? [m.content] : [])),
      ...tools.flatMap((t) => [t.name, t.description ?? "", ...schemaText(t.inputSchema)]),
    ].join("\n");
    for (const w of ownText.matchAll(WORD)) own.add(w[0].toLowerCase());
    const words = new Set<string>();
    for (const w of sources.matchAll(WORD))
      if (w[0].length >= MIN_WORD && UNUSUAL.test(w[0]) && !own.has(w[0].toLowerCase())) words.add(w[0]);
    const copied = new CopiedWords([...words]);
    return copied.#rests.size ? copied : undefined;
  }

  /**
   * The texts whose appearance in an answer means a held word was begun (node-llama-cpp stop triggers). `atStart`:
   * the answer has no text yet, so a word may begin with nothing before it — the bare prefixes are triggers too (and
   * one met later, inside a word, is no beginning: `begin` is asked with what came before it).
   */
  triggers(atStart: boolean): string[] {
    return [...this.#rests.keys(), ...(atStart ? this.#bare.keys() : [])];
  }

  /**
   * The word a trigger begins, when it does — a boundary and a prefix anywhere, or a bare prefix where a word starts
   * (nothing but white space or a boundary written before it: node-llama-cpp may report either trigger there) — as the
   * rest to write and what may close it: the bracket or quote the word began after, if any. Undefined for any other
   * text.
   */
  begin(trigger: string, before = ""): { rest: string; closer: string } | undefined {
    const bounded = this.#rests.get(trigger);
    if (bounded !== undefined) return { rest: bounded, closer: CLOSERS[trigger[0] as string] ?? "" };
    const bare = this.#bare.get(trigger);
    const last = before.trimEnd() === before ? before.at(-1) : " ";
    if (bare === undefined || (last !== undefined && !BOUNDARIES.includes(last))) return undefined;
    return { rest: bare, closer: CLOSERS[last ?? ""] ?? "" };
  }
}

/** A word: letters and digits, joined by "_" or "/" ("Buenos_Aires", "America/Caracas"). */
const WORD = /[\p{L}\p{N}]+(?:[_/][\p{L}\p{N}]+)*/gu;
const MIN_WORD = 4;
/**
 * A word no ordinary prose word is: with a letter, and a digit, "/" or "_" in it or a capital first. Numbers alone are
 * not held: a model copies digits well, and "333.33333333333" is two words here, the second of which "333" would begin.
 */
const UNUSUAL = /^(?=.*\p{L})(?:\p{Lu}|.*[\p{N}_/])/u;
const MIN_PREFIX = 3;
/** What may stand before a word the model begins. */
const BOUNDARIES = [" ", "\n", '"', "'", "(", "["];
/** What closes the bracket or quote a word began after. */
const CLOSERS: Record<string, string> = { "(": ")", "[": "]", '"': '"', "'": "'" };
/** The most recent result text read: a long file read needs no held words to quote from. */
const MAX_RESULT_CHARS = 20_000;

/**
 * Each word's shortest prefix (≥ 3 characters, shorter than the word) that no other word begins with, where there is
 * one: in sorted order, a prefix one character longer than the longest one shared with either neighbour.
 */
function uniquePrefixes(words: readonly string[]): Map<string, string> {
  const sorted = [...new Set(words)].sort();
  const shared = (a: string | undefined, b: string) => {
    if (a === undefined) return 0;
    let n = 0;
    while (n < a.length && n < b.length && a[n] === b[n]) n++;
    return n;
  };
  const prefixes = new Map<string, string>();
  sorted.forEach((word, i) => {
    const length = Math.max(MIN_PREFIX, shared(sorted[i - 1], word) + 1, shared(sorted[i + 1], word) + 1);
    if (length < word.length) prefixes.set(word, word.slice(0, length));
  });
  return prefixes;
}
