/**
 * The BFCL v4 test data the package ships in `data/bfcl` (Apache-2.0, with its LICENSE, checksums and a README naming
 * the upstream commit): one JSON object per line, entries `{id, question, function}` and possible answers
 * `{id, ground_truth}` lined up by index and id. `BFCL_DIR` points at another copy.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ToolbridgeError } from "../core/toolbridge-error.js";
import type { BfclFunctionDoc } from "../tools/bfcl-schema.js";

/** Every single-turn category of BFCL v4, in the leaderboard's order. */
export const BFCL_CATEGORIES = [
  "simple_python",
  "simple_java",
  "simple_javascript",
  "multiple",
  "parallel",
  "parallel_multiple",
  "irrelevance",
  "live_simple",
  "live_multiple",
  "live_parallel",
  "live_parallel_multiple",
  "live_irrelevance",
  "live_relevance",
] as const;
export type BfclCategory = (typeof BFCL_CATEGORIES)[number];

export const NON_LIVE_CATEGORIES: readonly BfclCategory[] = BFCL_CATEGORIES.filter(
  (c) => !c.startsWith("live_"),
);
export const LIVE_CATEGORIES: readonly BfclCategory[] = BFCL_CATEGORIES.filter((c) => c.startsWith("live_"));

/** The language BFCL's checker reads the arguments of a category in: Java and JavaScript send source text. */
export type BfclLanguage = "python" | "java" | "javascript";

export function categoryLanguage(category: BfclCategory): BfclLanguage {
  if (category === "simple_java") return "java";
  if (category === "simple_javascript") return "javascript";
  return "python";
}

/** What a category expects of the model: calls checked by the AST rules, no call at all, or any call. */
export function categoryKind(category: BfclCategory): "ast" | "irrelevance" | "relevance" {
  if (category.endsWith("irrelevance")) return "irrelevance";
  if (category === "live_relevance") return "relevance";
  return "ast";
}

export interface BfclMessage {
  role: string;
  content: string;
}

export interface BfclEntry {
  id: string;
  /** Turns, each a list of messages; in the single-turn categories always one turn (a system message at times). */
  question: BfclMessage[][];
  function: BfclFunctionDoc[];
}

/** Param name → acceptable values (ORed). The candidate `""` means the param may be omitted. */
export type BfclParamCandidates = Record<string, unknown[]>;
/** One expected call: a single key, the function name, mapping to its params' candidates. */
export type BfclExpectedCall = Record<string, BfclParamCandidates>;

export interface BfclAnswer {
  id: string;
  ground_truth: BfclExpectedCall[];
}

export interface BfclCase {
  category: BfclCategory;
  entry: BfclEntry;
  /** Undefined for the categories without an answer file (irrelevance, live_irrelevance, live_relevance). */
  answer: BfclAnswer | undefined;
}

export class BfclDataError extends ToolbridgeError {
  override name = "BfclDataError";
}

/** The package root: this file sits two levels below it, in src/eval or dist/eval. */
const PACKAGE_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The BFCL data folder: `$BFCL_DIR`, else the package's `data/bfcl`. Throws when it does not exist. */
export function bfclDataDir(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const dir = env.BFCL_DIR ? resolve(env.BFCL_DIR) : resolve(PACKAGE_ROOT, "data/bfcl");
  if (!existsSync(join(dir, "data"))) {
    throw new BfclDataError(
      `BFCL test data not found at ${dir} (expected ${join(dir, "data")}). The package ships it in data/bfcl; ` +
        "set BFCL_DIR to use another copy.",
    );
  }
  return dir;
}

function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) throw new BfclDataError(`BFCL file missing: ${file}`);
  // The last line has no trailing newline in some files and one in others; blank lines are skipped.
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      try {
        return JSON.parse(line) as T;
      } catch (error) {
        throw new BfclDataError(`${file}: line ${index + 1} is not valid JSON (${(error as Error).message})`);
      }
    });
}

const cache = new Map<string, BfclCase[]>();

/** All entries of one category, each joined with its possible answer (read once per process and folder). */
export function loadBfclCategory(category: BfclCategory, dir: string = bfclDataDir()): BfclCase[] {
  const key = `${dir}\0${category}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const entries = readJsonLines<BfclEntry>(join(dir, "data", `BFCL_v4_${category}.json`));
  let cases: BfclCase[];
  if (categoryKind(category) !== "ast") {
    cases = entries.map((entry) => ({ category, entry, answer: undefined }));
  } else {
    const answers = readJsonLines<BfclAnswer>(join(dir, "possible_answer", `BFCL_v4_${category}.json`));
    if (answers.length !== entries.length) {
      throw new BfclDataError(
        `${category}: ${entries.length} entries but ${answers.length} possible answers`,
      );
    }
    cases = entries.map((entry, index) => {
      const answer = answers[index]!;
      if (answer.id !== entry.id) {
        throw new BfclDataError(
          `${category}: entry ${index} has id ${entry.id} but its possible answer has id ${answer.id}`,
        );
      }
      return { category, entry, answer };
    });
  }
  cache.set(key, cases);
  return cases;
}

/** An entry of `known_issues.json`: a ground truth BFCL's own checker or JSON Schema disagrees with. */
export interface BfclKnownIssue {
  id: string;
  kind?: string;
  function?: string;
  /** One param name, or several joined by ", " (empty where the issue is not about one param). */
  param: string;
  note?: string;
  why?: string;
  type?: string;
  candidates?: unknown[];
}

export interface BfclKnownIssues {
  checker_inconsistent: BfclKnownIssue[];
  schema_invalid_ground_truth: {
    no_valid_candidate: BfclKnownIssue[];
    some_candidate: BfclKnownIssue[];
    variable_reference_candidates_java_js: BfclKnownIssue[];
  };
}

export function loadBfclKnownIssues(dir: string = bfclDataDir()): BfclKnownIssues {
  return JSON.parse(readFileSync(join(dir, "known_issues.json"), "utf8")) as BfclKnownIssues;
}
