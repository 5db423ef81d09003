import type { Tool } from "@modelcontextprotocol/server";
import MiniSearch from "minisearch";

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

interface ToolDocument {
  id: number;
  name: string;
  description: string;
  params: string;
  paramText: string;
}

function describeParameters(schema: unknown): { names: string[]; text: string[] } {
  const names: string[] = [];
  const text: string[] = [];
  const properties = (schema as { properties?: Record<string, unknown> } | undefined)?.properties;
  if (!properties || typeof properties !== "object") return { names, text };
  for (const [key, value] of Object.entries(properties)) {
    names.push(nameWords(key));
    const property = value as { description?: unknown; enum?: unknown };
    if (typeof property?.description === "string") text.push(property.description);
    if (Array.isArray(property?.enum))
      text.push(property.enum.filter((v) => typeof v === "string").join(" "));
  }
  return { names, text };
}

/** Distinct words of a query searched at most: a pasted page costs no more than a long paragraph. */
const QUERY_TERMS = 64;

const SEPARATOR = /[^\p{L}\p{N}]+/u;
const PLAIN = /^[A-Za-z0-9]+$/;
const JOINED_WORDS = /[a-z\d][A-Z]|[A-Z][A-Z][a-z]/;
const SCRIPT_RUNS = /[\p{Script=Latin}\p{N}]+|[^\p{Script=Latin}\p{N}]+/gu;

/**
 * Words of any text: split at everything that is not a letter or digit, then where identifiers join words
 * (`getWeather`, `HTTPServer`) and where Latin letters meet another script (`的workspace`). A run of CJK letters stays
 * one word, which matches only itself. Cheap on the common case: a plain ASCII word is taken as it is.
 */
function tokenize(text: string): string[] {
  const words: string[] = [];
  for (const raw of text.split(SEPARATOR)) {
    if (raw === "") continue;
    if (PLAIN.test(raw)) {
      if (JOINED_WORDS.test(raw)) words.push(...nameWords(raw).split(" "));
      else words.push(raw);
    } else {
      words.push(...(raw.match(SCRIPT_RUNS) ?? []));
    }
  }
  return words;
}

/**
 * Lexical retrieval over a tool catalogue (BM25 through minisearch): each tool is indexed by the words of its name,
 * its description, its parameter names and their descriptions (and enum values), the name counting most. Built once
 * per catalogue; a search takes a question or a conversation's text and ranks the tools for it.
 */
export class ToolIndex {
  readonly #search: MiniSearch<ToolDocument>;
  readonly #names: string[];

  constructor(tools: readonly Pick<Tool, "name" | "description" | "inputSchema">[]) {
    this.#names = tools.map((tool) => tool.name);
    this.#search = new MiniSearch<ToolDocument>({
      fields: ["name", "description", "params", "paramText"],
      tokenize,
      processTerm: (term) => normalizeTerm(term) ?? null,
      // Weights chosen on bench/tool-selection (BFCL's 1,853 functions): other weights and BM25 parameters moved
      // recall@5 by at most ±1.5 points.
      searchOptions: { boost: { name: 3, description: 1.5, params: 1, paramText: 1.5 }, combineWith: "OR" },
    });
    this.#search.addAll(
      tools.map((tool, id) => {
        const { names, text } = describeParameters(tool.inputSchema);
        return {
          id,
          name: nameWords(tool.name),
          description: tool.description ?? "",
          params: names.join(" "),
          paramText: text.join(" "),
        };
      }),
    );
  }

  get size(): number {
    return this.#names.length;
  }

  /** The tools that share words with `query`, best first; at most `limit`. */
  search(query: string, limit = Number.POSITIVE_INFINITY): ToolMatch[] {
    // Each distinct word once, and at most QUERY_TERMS of them: a pasted page costs no more than a paragraph.
    const terms = new Set<string>();
    for (const word of tokenize(query)) {
      const term = normalizeTerm(word);
      if (term !== null) terms.add(term);
      if (terms.size >= QUERY_TERMS) break;
    }
    if (terms.size === 0) return [];
    const hits = this.#search.search({ queries: [...terms], combineWith: "OR" });
    const matches: ToolMatch[] = [];
    for (const hit of hits) {
      if (matches.length >= limit) break;
      matches.push({ name: this.#names[hit.id as number]!, score: hit.score });
    }
    return matches;
  }
}
