/**
 * The BFCL v4 test data the repository ships in `data/bfcl` (the loader is src/eval/bfcl-dataset.ts, re-exported
 * here; override the folder with the `BFCL_DIR` environment variable). See that folder's README.md for the format.
 *
 * API:
 * - `loadBfclCategory(category)` → `BfclCase[]`: each test entry joined with its possible answer (by index,
 *   checked by id). `answer` is `undefined` for the categories without an answer file (irrelevance, live_irrelevance,
 *   live_relevance).
 * - `groundTruthCall(entry, expected)` → the single call that BFCL's ground truth describes, with plain
 *   argument values (see its doc comment for the rules), plus the function doc it targets.
 * - `groundTruthCalls(bfclCase)` → all expected calls of an entry, in order.
 * - `loadBfclKnownIssues()` → `known_issues.json`, parsed.
 *
 * When the data folder is missing every loader throws `BfclDataError`, so tests that need the data fail loudly
 * instead of passing with nothing checked.
 */

import type { BfclCase, BfclEntry, BfclExpectedCall } from "../../src/eval/bfcl-dataset.js";
import type { BfclFunctionDoc, BfclParameterSchema } from "../../src/tools/bfcl-schema.js";

export {
  BFCL_CATEGORIES,
  type BfclAnswer,
  type BfclCase,
  type BfclCategory,
  BfclDataError,
  type BfclEntry,
  type BfclExpectedCall,
  type BfclKnownIssue,
  type BfclKnownIssues,
  type BfclMessage,
  type BfclParamCandidates,
  bfclDataDir,
  loadBfclCategory,
  loadBfclKnownIssues,
  NON_LIVE_CATEGORIES,
} from "../../src/eval/bfcl-dataset.js";

export interface BfclCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The entry's function doc with this name. */
  doc: BfclFunctionDoc;
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
