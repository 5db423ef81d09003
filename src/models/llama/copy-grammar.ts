import type { Tool } from "@modelcontextprotocol/server";
import type { AgentMessage } from "../../core/agent-message.js";
import { resultToText } from "../../protocols/core/render-helpers.js";
import { zonesNamedIn } from "../../tools/builtin/resolve-time-zone.js";
import { caseVariants, hasSpanWords, SPAN_VALUE_RULE, spanTexts, spanValueRules } from "./span-grammar.js";

/**
 * Copy-constrained string arguments: a string a person gave (a city, a dice notation, a note's text, an expression's
 * numbers) is written by the call grammar out of the words of the conversation, so a model that starts copying
 * "purple" cannot drift into "pflip", and one that has nothing to copy cannot invent "dolmolmol".
 *
 * A value is read as runs: words (letters), numbers (digits) and everything else. Every word must be a whole word of
 * the sources, as written there, in lower case, capitalized or in capitals ("paris" → "Paris"); every number of three
 * or more digits must be one of theirs. The escape for values that are legitimately new: the other characters (spaces,
 * operators, punctuation, other scripts; for a tiny model, those outside ASCII only where the conversation has them)
 * are free, numbers of one or two digits are free ("64 * 0.18" from "18% tip on 64"), and the words of the offered
 * tools' own schemas count as
 * sources ("now" for time_difference, "sqrt" for the calculator, "kh" for dice notation). The sources are what the
 * model was given and did not write: user and system messages and tool results (the prose of the tools' schemas
 * too: descriptions, enum values, defaults, examples).
 */
export interface CopySources {
  /** The words of the conversation (what the model was given and did not write). */
  words: readonly string[];
  /**
   * Each offered tool's own schema words that the conversation lacks, by tool name. A tool's arguments may use its own
   * only: a note's "purple" must not become "parentheses" out of the calculator's description.
   */
  schemaWords?: Readonly<Record<string, readonly string[]>>;
  numbers: readonly string[];
  /**
   * When set, a value is a whole span of one of these texts instead (span-grammar.ts): for a tiny model calling a
   * tool it was never trained on, which cannot be trusted to put the words in order or to finish a phrase.
   */
  spans?: readonly string[];
  /**
   * When the latest request names a zone ("Europe/Belgrade", "jakarta"): the zones it and the earlier requests name. A
   * time-zone argument is one of them — a tiny model copying a zone it never saw writes "Europe/Brussels" for
   * "Europe/Belgrade", a real zone but not the one asked for. Absent when the latest request names none: any zone.
   */
  zones?: readonly string[];
  /**
   * When set, the only characters outside ASCII a value may hold outside words: the conversation's (`copySources` with
   * `copiedCharacters`). For a tiny model, which otherwise writes "→" between the words it copies, while "15 m³" or
   * "200°C" must still be written as the person wrote them.
   */
  characters?: readonly string[];
}

/** Letters of scripts that separate words with spaces (Latin, Greek, Cyrillic); others are free characters. */
const WORD_RANGES = "a-zA-Z\\u00C0-\\u00D6\\u00D8-\\u00F6\\u00F8-\\u024F\\u0370-\\u03FF\\u0400-\\u04FF";
const WORD = new RegExp(`[${WORD_RANGES}]+`, "gu");
const DIGITS = /[0-9]+/g;
/** Characters outside ASCII that are not letters of a word (WORD) — free characters a value may copy ("³", "°", "♥"). */
const OTHER_CHARACTER = new RegExp(`[^\\x00-\\x7F${WORD_RANGES}]`, "gu");
/** Most recent source text kept, and most words: the grammar grows with them. */
const MAX_SOURCE_CHARS = 20_000;
const MAX_WORDS = 3_000;
/**
 * English function words, free in every copied string in lower case: they carry no value a person gave, and a note's
 * text needs them ("the bike lock combo is 2047" from "store a note: bike lock combo 2047"; while every offered tool's
 * schema words counted for every tool, those descriptions supplied them). Lower case only, and no word that begins a
 * common value: a small model starting "Friday" or "purple" must not be let off at "To" or "per".
 */
const FUNCTION_WORDS = (
  "a an and are at be for from has have her his i in is it its my not of on or our the their there this to was we " +
  "with you your"
).split(" ");
const FUNCTION_WORD_RULE = "cp-function";
/** Made once: the same in every copied string's grammar. */
const FUNCTION_WORD_RULES = trieRules(trie(FUNCTION_WORDS), FUNCTION_WORD_RULE);
/** Numbers this long or shorter need not be copied. */
const FREE_DIGITS = 2;

function messageText(m: AgentMessage): string {
  if (m.role === "user" || m.role === "system") return m.content;
  if (m.role === "tool") return resultToText(m.result);
  return "";
}

/**
 * The prose of a schema: descriptions, enum and const values, defaults and examples — not its keywords ("type",
 * "properties", "string"), which are no value anyone means.
 */
export function schemaText(node: unknown, out: string[] = []): string[] {
  if (Array.isArray(node)) for (const n of node) schemaText(n, out);
  else if (node && typeof node === "object") {
    for (const [key, value] of Object.entries(node)) {
      if (key === "description" || key === "title") out.push(String(value));
      else if (key === "enum" || key === "examples" || key === "default" || key === "const")
        out.push(JSON.stringify(value));
      else if (typeof value === "object") schemaText(value, out);
    }
  }
  return out;
}

/**
 * The pieces of a schema word that changes from lower to upper case, when it has such a change: a description's
 * placeholders ("khN / klN keep the N highest / lowest") and identifiers ("maxResults") hold words a value needs on
 * their own ("2d20kl1" from "keep the lowest 1": without "kl" the grammar let the model write only "klN").
 */
function caseParts(word: string): string[] {
  const parts = word.split(/(?<=\p{Ll})(?=\p{Lu})/u);
  return parts.length > 1 ? parts : [];
}

/**
 * The words and numbers a copied argument may use: from the conversation (newest first) and the tools' schemas; with
 * `spans`, also the texts a value must be a whole span of (when they hold a word to copy).
 */
export function copySources(
  messages: readonly AgentMessage[],
  tools: readonly Tool[],
  options: { spans?: boolean; copiedCharacters?: boolean } = {},
): CopySources {
  const conversation = messages.map(messageText).join("\n").slice(-MAX_SOURCE_CHARS);
  const words = new Set<string>();
  const numbers = new Set<string>();
  for (const w of [...conversation.matchAll(WORD)].reverse()) if (words.size < MAX_WORDS) words.add(w[0]);
  for (const n of conversation.matchAll(DIGITS)) if (n[0].length > FREE_DIGITS) numbers.add(n[0]);
  const characters = options.copiedCharacters
    ? [...new Set(conversation.match(OTHER_CHARACTER) ?? [])].sort()
    : undefined;
  const schemaWords: Record<string, string[]> = {};
  for (const t of tools) {
    const text = [t.description ?? "", ...schemaText(t.inputSchema)].join("\n");
    const own = new Set<string>();
    for (const w of text.matchAll(WORD))
      for (const part of [w[0], ...caseParts(w[0])])
        if (!words.has(part) && own.size < MAX_WORDS) own.add(part);
    for (const n of text.matchAll(DIGITS)) if (n[0].length > FREE_DIGITS) numbers.add(n[0]);
    if (own.size) schemaWords[t.name] = [...own].sort();
  }
  const spans = options.spans ? spanTexts(messages) : [];
  // Only when the latest request names a zone; then also those the earlier requests it is shown name: a follow-up
  // ("and to Tokyo?") converts from the zone named before it, while "how many days until christmas?" after a question
  // about Belgrade names none, and its get_time stays free (UTC, as the model would write it).
  const requests = messages.filter((m) => m.role === "user");
  const latest = requests.at(-1);
  const zones =
    latest && zonesNamedIn(latest.content).length
      ? [...new Set(requests.flatMap((m) => zonesNamedIn(m.content)))].sort()
      : [];
  return {
    words: [...words].sort(),
    ...(Object.keys(schemaWords).length ? { schemaWords } : {}),
    numbers: [...numbers].sort(),
    ...(hasSpanWords(spans) ? { spans } : {}),
    ...(zones.length ? { zones } : {}),
    ...(characters ? { characters } : {}),
  };
}

interface TrieNode {
  end: boolean;
  children: Map<string, TrieNode>;
}

function trie(items: readonly string[]): TrieNode {
  const root: TrieNode = { end: false, children: new Map() };
  for (const item of items) {
    let node = root;
    for (const c of item) {
      let next = node.children.get(c);
      if (!next) node.children.set(c, (next = { end: false, children: new Map() }));
      node = next;
    }
    node.end = true;
  }
  return root;
}

/**
 * GBNF rules accepting exactly the items of a trie (a path-compressed one: a chain without branches is one sequence).
 * Returns the rules; `name` is the root rule.
 */
function trieRules(root: TrieNode, name: string): string[] {
  const char = (c: string) => JSON.stringify(c);
  const rules: string[] = [];
  let count = 0;
  const visit = (node: TrieNode, rule: string) => {
    const alternatives: string[] = node.end ? ['""'] : [];
    for (const [c, first] of node.children) {
      const chain = [char(c)];
      let child = first;
      while (!child.end && child.children.size === 1) {
        const [[d, only]] = child.children as unknown as [[string, TrieNode]];
        chain.push(char(d));
        child = only;
      }
      if (child.children.size === 0) alternatives.push(chain.join(" "));
      else {
        const sub = `${name}-${++count}`;
        alternatives.push(`${chain.join(" ")} ${sub}`);
        visit(child, sub);
      }
    }
    rules.push(`${rule} ::= ${alternatives.length ? alternatives.join(" | ") : '""'}`);
  };
  visit(root, name);
  return rules;
}

export const COPY_VALUE_RULE = "cp-value";
export const COPY_VALUE_NONEMPTY_RULE = "cp-value1";

/** The rule names of one tool's copied strings (`copyValueRules` with `tools`): `cp<index>-value`, `cp<index>-value1`. */
export const toolCopyValueRule = (index: number) => `cp${index}-value`;
export const toolCopyValueNonEmptyRule = (index: number) => `cp${index}-value1`;

/**
 * The GBNF rules of a copied JSON string (quotes included): `cp-value` and `cp-value1` (at least one character), whose
 * words are the conversation's and every tool's schema words; with `tools` (the call body's tools, in its order),
 * also `cp<i>-value` and `cp<i>-value1` for each, whose words are the conversation's and that tool's own schema words
 * only. `maxItems` bounds the number of runs and free characters (so a model that never closes the string is stopped,
 * as maxLength stops it in a plain string).
 */
export function copyValueRules(
  sources: CopySources,
  maxItems?: number,
  tools: readonly string[] = [],
): string {
  const own = sources.schemaWords ?? {};
  // The rule without a tool takes every schema's words; each tool's, the conversation's and its own only.
  const scopes = [
    {
      prefix: "cp-",
      value: COPY_VALUE_RULE,
      nonEmpty: COPY_VALUE_NONEMPTY_RULE,
      schema: Object.values(own).flat(),
    },
    ...tools.map((name, i) => ({
      prefix: `cp${i}-`,
      value: toolCopyValueRule(i),
      nonEmpty: toolCopyValueNonEmptyRule(i),
      schema: own[name] ?? [],
    })),
  ];
  // A span is bounded by its text already.
  if (sources.spans)
    return [
      spanValueRules(sources.spans),
      ...scopes.flatMap((v) => [`${v.value} ::= ${SPAN_VALUE_RULE}`, `${v.nonEmpty} ::= ${SPAN_VALUE_RULE}`]),
    ].join("\n");
  const escaped = `"\\\\" ["\\\\/bfnrt]`;
  const free = sources.characters
    ? // ASCII punctuation and space, and the conversation's other characters.
      [`[ !#-/:-@[\\]^_\\x60{-~]`, ...sources.characters.map((c) => JSON.stringify(c)), escaped].join(" | ")
    : `[^"\\\\\\x7F\\x00-\\x1F0-9${WORD_RANGES}] | ${escaped}`;
  const rules = [
    `cp-free ::= ${free}`,
    `cp-num ::= [0-9] [0-9]?${sources.numbers.length ? " | cp-digits" : ""}`,
    ...FUNCTION_WORD_RULES,
  ];
  if (sources.numbers.length) rules.push(...trieRules(trie(sources.numbers), "cp-digits"));
  const trieOf = (words: readonly string[], name: string): string | undefined => {
    if (!words.length) return undefined;
    rules.push(...trieRules(trie([...new Set(words.flatMap(caseVariants))]), name));
    return name;
  };
  const either = (a: string | undefined, b: string | undefined, name: string) => {
    if (!a || !b) return a ?? b;
    rules.push(`${name} ::= ${a} | ${b}`);
    return name;
  };
  const conversation = either(trieOf(sources.words, "cp-heard"), FUNCTION_WORD_RULE, "cp-said");
  for (const { prefix: p, value, nonEmpty, schema } of scopes) {
    const word = either(conversation, trieOf(schema, `${p}own`), `${p}word`);
    rules.push(
      ...stateRules(p, word, maxItems),
      `${value} ::= "\\"" ${p}start "\\""`,
      `${nonEmpty} ::= "\\"" ${p}first "\\""`,
    );
  }
  return rules.join("\n");
}

/**
 * The runs of one copied string, as `<p>start` (possibly empty) and `<p>first` (at least one item): words from the
 * `word` rule (none when undefined), numbers, free characters. After a word another word cannot follow directly
 * (that would be one longer word), nor a number after a number.
 */
function stateRules(p: string, word: string | undefined, maxItems: number | undefined): string[] {
  const rules: string[] = [];
  const state = (kind: "s" | "w" | "n", k: number | undefined, empty: boolean) => {
    const next = (to: string) => (k === undefined ? `${p}${to}` : `${p}${to}${k + 1}`);
    const alternatives = [
      ...(empty ? ['""'] : []),
      `cp-free ${next("s")}`,
      ...(kind !== "w" && word ? [`${word} ${next("w")}`] : []),
      ...(kind !== "n" ? [`cp-num ${next("n")}`] : []),
    ];
    return alternatives.join(" | ");
  };
  if (maxItems === undefined) {
    for (const kind of ["s", "w", "n"] as const)
      rules.push(`${p}${kind} ::= ${state(kind, undefined, true)}`);
    rules.push(`${p}first ::= ${state("s", undefined, false)}`, `${p}start ::= ${p}s`);
  } else {
    for (let k = 1; k < maxItems; k++)
      for (const kind of ["s", "w", "n"] as const) rules.push(`${p}${kind}${k} ::= ${state(kind, k, true)}`);
    for (const kind of ["s", "w", "n"] as const) rules.push(`${p}${kind}${maxItems} ::= ""`);
    rules.push(`${p}start ::= ${state("s", 0, true)}`, `${p}first ::= ${state("s", 0, false)}`);
  }
  return rules;
}
