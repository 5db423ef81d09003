/**
 * Loader for the BFCL v4 test data the repository ships in `data/bfcl` (Apache-2.0, with its LICENSE and
 * checksums; override with the `BFCL_DIR` environment variable). See that folder's README.md for the format.
 *
 * API:
 * - `loadBfclCategory(category)` → `BfclCase[]`: each test entry joined with its possible answer (by index,
 *   checked by id). `answer` is `undefined` for `irrelevance`, which has no answer file.
 * - `groundTruthCall(entry, expected)` → the single call that BFCL's ground truth describes, with plain
 *   argument values (see its doc comment for the rules), plus the function doc it targets.
 * - `groundTruthCalls(bfclCase)` → all expected calls of an entry, in order.
 * - `loadBfclKnownIssues()` → `known_issues.json`, parsed.
 *
 * When the data folder is missing every loader throws `BfclDataMissingError`, so tests that need the data
 * fail loudly instead of passing with nothing checked.
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import type { BfclFunctionDoc, BfclParameterSchema } from "../../src/tools/bfcl-schema.js";

export const BFCL_CATEGORIES = [
  "simple_python",
  "multiple",
  "parallel",
  "parallel_multiple",
  "irrelevance",
  "simple_java",
  "simple_javascript",
] as const;
export type BfclCategory = (typeof BFCL_CATEGORIES)[number];

export interface BfclMessage {
  role: string;
  content: string;
}

export interface BfclEntry {
  id: string;
  /** Turns, each a list of messages; in these files always one turn with one user message. */
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
  entry: BfclEntry;
  /** Undefined for categories without an answer file (irrelevance). */
  answer: BfclAnswer | undefined;
}

export interface BfclCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The entry's function doc with this name. */
  doc: BfclFunctionDoc;
}

export interface BfclKnownIssue {
  id: string;
  kind?: string;
  function?: string;
  /** One param name, or several joined by ", ". */
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

export class BfclDataMissingError extends Error {
  override readonly name = "BfclDataMissingError";
}

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The BFCL data folder: `$BFCL_DIR`, else `<repo root>/data/bfcl`. Throws when it does not exist. */
export function bfclDataDir(): string {
  const dir = process.env.BFCL_DIR ? resolve(process.env.BFCL_DIR) : resolve(REPO_ROOT, "data/bfcl");
  if (!existsSync(join(dir, "data"))) {
    throw new BfclDataMissingError(
      `BFCL test data not found at ${dir} (expected ${join(dir, "data")}). These tests need the BFCL v4 ` +
        "files, which the repository ships in data/bfcl; set BFCL_DIR to use another copy.",
    );
  }
  return dir;
}

function readJsonLines<T>(file: string): T[] {
  if (!existsSync(file)) throw new BfclDataMissingError(`BFCL file missing: ${file}`);
  // The last line has no trailing newline; blank lines (and a stray final newline) are skipped.
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, index) => {
      try {
        return JSON.parse(line) as T;
      } catch (error) {
        throw new Error(`${file}: line ${index + 1} is not valid JSON (${(error as Error).message})`);
      }
    });
}

/** All entries of one category, each joined with its possible answer. */
export function loadBfclCategory(category: BfclCategory): BfclCase[] {
  const dir = bfclDataDir();
  const entries = readJsonLines<BfclEntry>(join(dir, "data", `BFCL_v4_${category}.json`));
  const answerFile = join(dir, "possible_answer", `BFCL_v4_${category}.json`);
  if (category === "irrelevance") return entries.map((entry) => ({ entry, answer: undefined }));
  const answers = readJsonLines<BfclAnswer>(answerFile);
  if (answers.length !== entries.length) {
    throw new Error(`${category}: ${entries.length} entries but ${answers.length} possible answers`);
  }
  return entries.map((entry, index) => {
    const answer = answers[index]!;
    if (answer.id !== entry.id) {
      throw new Error(
        `${category}: entry ${index} has id ${entry.id} but its possible answer has id ${answer.id}`,
      );
    }
    return { entry, answer };
  });
}

export function loadBfclKnownIssues(): BfclKnownIssues {
  return JSON.parse(readFileSync(join(bfclDataDir(), "known_issues.json"), "utf8")) as BfclKnownIssues;
}

const DICT_TYPES = new Set(["dict", "HashMap"]);
const ARRAY_TYPES = new Set(["array", "tuple", "Array", "ArrayList"]);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A dict candidate `{k: [v, ...]}` → `{k: v}` with each key's first non-"" value; keys with none are left out. */
function flattenDictCandidate(candidate: unknown): unknown {
  if (!isPlainObject(candidate)) return candidate;
  const flat: Record<string, unknown> = {};
  for (const [key, values] of Object.entries(candidate)) {
    // A bare value (not a list) is read as its single candidate; BFCL's simple_java_64 has one.
    const options = Array.isArray(values) ? values : [values];
    const first = options.find((value) => value !== "");
    if (first !== undefined) flat[key] = first;
  }
  return flat;
}

function plainValue(candidate: unknown, schema: BfclParameterSchema | undefined): unknown {
  if (schema?.type !== undefined && DICT_TYPES.has(schema.type)) return flattenDictCandidate(candidate);
  const itemType = schema?.items?.type;
  if (
    schema?.type !== undefined &&
    ARRAY_TYPES.has(schema.type) &&
    itemType !== undefined &&
    DICT_TYPES.has(itemType) &&
    Array.isArray(candidate)
  ) {
    return candidate.map(flattenDictCandidate);
  }
  return candidate;
}

/**
 * The call described by one expected call of the ground truth: for each param, its first candidate that is
 * not `""`; params whose candidates include `""` (may be omitted) are left out. Dict candidates (for
 * dict-typed params, and the elements of arrays of dicts) become plain objects holding each key's first
 * non-`""` value. Params the doc does not define are kept, so schema validation sees them.
 */
export function groundTruthCall(entry: BfclEntry, expected: BfclExpectedCall): BfclCall {
  const names = Object.keys(expected);
  if (names.length !== 1) {
    throw new Error(
      `${entry.id}: an expected call must have exactly one function name, got ${names.join(", ")}`,
    );
  }
  const name = names[0]!;
  const doc = entry.function.find((fn) => fn.name === name);
  if (!doc)
    throw new Error(`${entry.id}: ground truth calls "${name}", which is not among the entry's functions`);
  const args: Record<string, unknown> = {};
  for (const [param, candidates] of Object.entries(expected[name]!)) {
    if (candidates.includes("")) continue;
    if (candidates.length === 0) throw new Error(`${entry.id}: ${name}.${param} has no candidates`);
    args[param] = plainValue(candidates[0], doc.parameters.properties?.[param]);
  }
  return { name, arguments: args, doc };
}

/** Every expected call of an entry, in ground-truth order. Throws for an entry without an answer. */
export function groundTruthCalls({ entry, answer }: BfclCase): BfclCall[] {
  if (!answer) throw new Error(`${entry.id}: no possible answer (irrelevance entries expect no call)`);
  return answer.ground_truth.map((expected) => groundTruthCall(entry, expected));
}
