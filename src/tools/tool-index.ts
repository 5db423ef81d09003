import type { Tool } from "@modelcontextprotocol/server";

/** One ranked tool: its name and BM25 score (higher is more relevant). */
export interface ToolMatch {
  name: string;
  score: number;
}

/** Words that carry no meaning for telling tools apart (in questions and descriptions alike). */
const STOP_WORDS = new Set(
  (
    "a an and are as at be been but by can could do does for from had has have how i if in into is it its me my of on " +
    "or our please should so than that the their them then there these they this those to us was we were what when " +
    "where which who will with would you your"
  ).split(" "),
);

/**
 * A word as the index keeps it: lowercase, with the endings that only inflect it cut off (`files` and `file`,
 * `converting` and `convert`, `searched` and `search` are one term), so a question finds a description worded another
 * way. Deliberately light: the same rule is applied to questions and tools, so it only has to be consistent.
 */
export function normalizeTerm(word: string): string | null {
  const known = normalized.get(word);
  if (known !== undefined) return known;
  const term = normalize(word);
  // Vocabularies are small next to the words indexed; the cache is bounded for texts that never repeat.
  if (normalized.size > 100_000) normalized.clear();
  normalized.set(word, term);
  return term;
}

const normalized = new Map<string, string | null>();

function normalize(word: string): string | null {
  let term = word.toLowerCase();
  if (term.length < 2 && !/\d/.test(term)) return null;
  if (STOP_WORDS.has(term)) return null;
  if (term.endsWith("'s")) term = term.slice(0, -2);
  if (term.length > 5 && term.endsWith("ing")) term = term.slice(0, -3);
  else if (term.length > 4 && term.endsWith("ies")) term = `${term.slice(0, -3)}y`;
  else if (term.length > 4 && term.endsWith("ed")) term = term.slice(0, -2);
  else if (term.length > 3 && term.endsWith("s") && !/[sui]/.test(term[term.length - 2]!))
    term = term.slice(0, -1);
  return term;
}

/** `get_current_weather`, `calculateBMI`, `math.roots.cubic`, `Trains_1_FindTrains` → their words. */
export function nameWords(name: string): string {
  return name
    .replace(/([a-z\d])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/[_.:/\-\s]+/g, " ")
    .trim();
}

/** Distinct words of a query searched at most: a pasted page costs no more than a long paragraph. */
const QUERY_TERMS = 64;

const WORD_RUN = /[\p{L}\p{N}]+/gu;
/** Longer runs of letters are cut here: no word or tool name is that long (names stop at 128), pasted data may be. */
const LONGEST_WORD = 256;
const PLAIN = /^[A-Za-z0-9]+$/;
const JOINED_WORDS = /[a-z\d][A-Z]|[A-Z][A-Z][a-z]/;
const SCRIPT_RUNS = /[\p{Script=Latin}\p{N}]+|[^\p{Script=Latin}\p{N}]+/gu;

/**
 * Words of any text: split at everything that is not a letter or digit, then where identifiers join words
 * (`getWeather`, `HTTPServer`) and where Latin letters meet another script (`的workspace`). A run of CJK letters stays
 * one word, which matches only itself. Cheap on the common case: a plain ASCII word is taken as it is.
 */
function* tokenize(text: string): Generator<string> {
  // Word by word, never spread into an argument list: a pasted megabyte of one "word" (`AB1AB1…`) splits into half a
  // million words, more than a call's arguments may hold; and a search stops reading once it has enough terms.
  for (const [run] of text.matchAll(WORD_RUN)) {
    const raw = run.length > LONGEST_WORD ? run.slice(0, LONGEST_WORD) : run;
    if (PLAIN.test(raw)) {
      if (JOINED_WORDS.test(raw)) yield* nameWords(raw).split(" ");
      else yield raw;
    } else {
      for (const match of raw.matchAll(SCRIPT_RUNS)) yield match[0];
    }
  }
}

/** The fields a tool is indexed by: its name's words, description, parameter names, parameter descriptions and enums. */
const FIELDS = 4;
/**
 * BM25F per field: how much a word counts there, and how much a long field dilutes it (`b`: 0 none, 1 fully). The name
 * counts most and is barely diluted (a long name is no less about each of its words); descriptions are diluted as
 * prose is. Chosen on bench/tool-selection (BFCL's 1,853 functions): other weights moved recall@5 by under a point.
 */
const FIELD_WEIGHT = [3, 2, 1.5, 1.2] as const;
const FIELD_LENGTH_NORM = [0.5, 0.75, 0.5, 0.75] as const;
/** Term-frequency saturation: a word's second mention adds less than its first. */
const K1 = 1.2;

function parameterFields(schema: unknown): { names: string; text: string } {
  const names: string[] = [];
  const text: string[] = [];
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!properties || typeof properties !== "object") return { names: "", text: "" };
  for (const [key, value] of Object.entries(properties)) {
    names.push(nameWords(key));
    const property = value as { description?: unknown; enum?: unknown };
    if (typeof property?.description === "string") text.push(property.description);
    if (Array.isArray(property?.enum))
      text.push(property.enum.filter((v) => typeof v === "string").join(" "));
  }
  return { names: names.join(" "), text: text.join(" ") };
}

function terms(text: string): string[] {
  const out: string[] = [];
  for (const word of tokenize(text)) {
    const term = normalizeTerm(word);
    if (term !== null) out.push(term);
  }
  return out;
}

/**
 * A tool name a request spells out: an identifier (`get_current_time`, `geodistance.find`, `sortList`) anywhere, or
 * any name in quotes or backticks (`'multiply'`). Plain words are not taken as names: "add" or "search" in a sentence
 * is a word, not a choice of tool. Read as runs of name characters (one pass, no backtracking: a pasted page of
 * letters costs what its length does), each looked up in the catalogue's names before anything else is checked.
 */
const NAME_RUN = /[`'"]?[A-Za-z0-9_.-]+[`'"]?/g;
const isQuote = (c: string | undefined) => c === "`" || c === "'" || c === '"';

/** The catalogue's tools `query` spells out (their positions in `names`). */
function spelledTools(query: string, names: ReadonlyMap<string, number>): Set<number> {
  const found = new Set<number>();
  for (const [run] of query.matchAll(NAME_RUN)) {
    if (run.length > 130) continue; // names stop at 128
    const quoted = run.length > 2 && isQuote(run[0]) && isQuote(run[run.length - 1]);
    const start = isQuote(run[0]) ? 1 : 0;
    let end = isQuote(run[run.length - 1]) && run.length > 1 ? run.length - 1 : run.length;
    // A sentence's full stop or a dash after the name is not part of it.
    while (end > start && (run[end - 1] === "." || run[end - 1] === "-")) end--;
    const name = run.slice(start, end);
    const id = names.get(name);
    if (id === undefined) continue;
    if (quoted || /[_.-]/.test(name) || /[a-z][A-Z]/.test(name)) found.add(id);
  }
  return found;
}

/**
 * Lexical retrieval over a tool catalogue: BM25F over the words of each tool's name, its description, its parameter
 * names and their descriptions (and enum values), the name counting most. Built once per catalogue (about 30 µs a
 * tool); a search takes a question or a conversation's text and ranks the tools for it (well under a millisecond for
 * 2,000 tools). A purpose-built inverted index rather than minisearch: minisearch's general query machinery (a map of
 * result objects per term, merged per OR, every hit sorted) cost over 1 ms per question on bench/tool-selection, ten
 * times this, for the same ranking.
 */
export class ToolIndex {
  readonly #names: string[];
  readonly #byName: Map<string, number>;
  /** term → [tool, field-weighted and length-normalised frequency, tool, …]: one flat array per term. */
  readonly #postings = new Map<string, number[]>();
  /** Score per tool, reused by every search (zeroed again for the tools a search touched). */
  readonly #scores: Float64Array;

  constructor(tools: readonly Pick<Tool, "name" | "description" | "inputSchema">[]) {
    this.#names = tools.map((tool) => tool.name);
    this.#byName = new Map(this.#names.map((name, i) => [name, i]));
    this.#scores = new Float64Array(tools.length);
    const documents = tools.map((tool) => {
      const parameters = parameterFields(tool.inputSchema);
      return [
        terms(nameWords(tool.name)),
        terms(tool.description ?? ""),
        terms(parameters.names),
        terms(parameters.text),
      ];
    });
    const averageLength = Array.from({ length: FIELDS }, (_, field) => {
      let total = 0;
      for (const fields of documents) total += fields[field]!.length;
      return total / Math.max(1, documents.length) || 1;
    });
    const frequency = new Map<string, number>();
    documents.forEach((fields, id) => {
      frequency.clear();
      fields.forEach((words, field) => {
        const b = FIELD_LENGTH_NORM[field]!;
        const weight = FIELD_WEIGHT[field]! / (1 - b + (b * words.length) / averageLength[field]!);
        for (const word of words) frequency.set(word, (frequency.get(word) ?? 0) + weight);
      });
      for (const [word, tf] of frequency) {
        const postings = this.#postings.get(word);
        if (postings) postings.push(id, tf);
        else this.#postings.set(word, [id, tf]);
      }
    });
  }

  get size(): number {
    return this.#names.length;
  }

  /**
   * The tools that share words with `query`, best first; at most `limit`. A tool whose name the query spells out (an
   * identifier such as `get_current_time`, or a name in quotes) ranks above every tool it does not name.
   */
  search(query: string, limit = Number.POSITIVE_INFINITY): ToolMatch[] {
    // Each distinct word once, and at most QUERY_TERMS of them: a pasted page costs no more than a paragraph.
    const queryTerms = new Set<string>();
    for (const word of tokenize(query)) {
      const term = normalizeTerm(word);
      if (term !== null) queryTerms.add(term);
      if (queryTerms.size >= QUERY_TERMS) break;
    }
    const scores = this.#scores;
    const touched: number[] = [];
    const count = this.#names.length;
    for (const term of queryTerms) {
      const postings = this.#postings.get(term);
      if (!postings) continue;
      const documentFrequency = postings.length / 2;
      const idf = Math.log(1 + (count - documentFrequency + 0.5) / (documentFrequency + 0.5));
      for (let i = 0; i < postings.length; i += 2) {
        const id = postings[i]!;
        const tf = postings[i + 1]!;
        if (scores[id] === 0) touched.push(id);
        scores[id]! += (idf * tf * (K1 + 1)) / (tf + K1);
      }
    }
    const named = /[`'"_.A-Z-]/.test(query) ? spelledTools(query, this.#byName) : new Set<number>();
    if (named.size > 0) {
      let best = 0;
      for (const id of touched) best = Math.max(best, scores[id]!);
      for (const id of named) {
        if (scores[id] === 0) touched.push(id);
        // Above the best tool it does not name, in the order of their own scores.
        scores[id] = best + scores[id]! + Number.EPSILON;
      }
    }
    touched.sort((a, b) => scores[b]! - scores[a]! || a - b);
    const matches: ToolMatch[] = [];
    for (const id of touched) {
      if (matches.length < limit) matches.push({ name: this.#names[id]!, score: scores[id]! });
      scores[id] = 0;
    }
    return matches;
  }
}
