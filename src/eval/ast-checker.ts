import {
  type BfclAnswer,
  type BfclCategory,
  type BfclEntry,
  type BfclExpectedCall,
  categoryKind,
  categoryLanguage,
} from "./bfcl-dataset.js";
import { checkCall, type ModelCall } from "./check-call.js";
import { type CheckResult, failed, PASSED } from "./failure-class.js";

export type { ModelCall } from "./check-call.js";

/** What a model answered to one entry: the calls it made (names mapped back to the entry's) and unreadable ones. */
export interface EntryOutput {
  calls: readonly ModelCall[];
  /** Why each call that could not be read failed (malformed markup, arguments that are not JSON). */
  unreadable: readonly string[];
}

function expectedName(expected: BfclExpectedCall): string {
  return Object.keys(expected)[0] ?? "";
}

function callCount(n: number): string {
  return `${n} call${n === 1 ? "" : "s"}`;
}

/**
 * Pair every expected call with a different model call that passes it, in any order (a maximum bipartite matching).
 * BFCL itself pairs greedily, which rejects one correct answer in its data (parallel_178, listed in known_issues.json)
 * when the calls come in another order; otherwise the two agree.
 */
function matchParallel(
  entry: BfclEntry,
  calls: readonly ModelCall[],
  expected: readonly BfclExpectedCall[],
  check: (doc: BfclEntry["function"][number], call: ModelCall, expectedCall: BfclExpectedCall) => CheckResult,
): CheckResult {
  const results = expected.map((expectedCall) => {
    const doc = entry.function.find((fn) => fn.name === expectedName(expectedCall));
    return calls.map((call) =>
      doc === undefined
        ? failed(
            "wrong-function",
            `the answer expects "${expectedName(expectedCall)}", which the entry does not define`,
          )
        : check(doc, call, expectedCall),
    );
  });
  const owner = new Array<number>(calls.length).fill(-1);
  const assign = (i: number, seen: boolean[]): boolean => {
    for (let j = 0; j < calls.length; j++) {
      if (seen[j] || !results[i]![j]!.passed) continue;
      seen[j] = true;
      if (owner[j] === -1 || assign(owner[j]!, seen)) {
        owner[j] = i;
        return true;
      }
    }
    return false;
  };
  for (let i = 0; i < expected.length; i++) {
    if (assign(i, new Array<boolean>(calls.length).fill(false))) continue;
    // Report why the calls to the same function fail this expected call (the first of them), else a wrong function.
    const name = expectedName(expected[i]!);
    const sameName = calls.findIndex((call) => call.name === name);
    const reason = sameName >= 0 ? results[i]![sameName]! : undefined;
    if (reason && !reason.passed) {
      return failed(
        reason.failure.class,
        `no call matches expected call ${i + 1} (${name}): ${reason.failure.message}`,
        reason.failure.param,
      );
    }
    return failed("wrong-function", `no call matches expected call ${i + 1} (${name})`);
  }
  return PASSED;
}

/**
 * BFCL's AST checker for one entry of a single-turn category. Irrelevance: passes when the model makes no call
 * (unreadable call markup counts as none, as in BFCL). Relevance: passes on any readable call. Otherwise the calls
 * are checked by the category: `parallel…` the same number of calls as expected, paired in any order; `multiple` one
 * call, checked against the function the answer names; `simple` one call to the entry's function.
 */
export function checkEntry(input: {
  category: BfclCategory;
  entry: BfclEntry;
  answer: BfclAnswer | undefined;
  output: EntryOutput;
}): CheckResult {
  const { category, entry, answer, output } = input;
  const { calls, unreadable } = output;
  const kind = categoryKind(category);
  if (kind === "irrelevance") {
    if (calls.length === 0) return PASSED;
    return failed(
      "unexpected-call",
      `called ${calls.map((c) => c.name).join(", ")} though none of the functions fits the request`,
    );
  }
  if (unreadable.length > 0) return failed("unparseable", `unreadable call: ${unreadable[0]}`);
  if (calls.length === 0) return failed("no-call", "answered without a call");
  if (kind === "relevance") return PASSED;
  if (!answer) return failed("wrong-function", `${entry.id} has no possible answer to check against`);
  const language = categoryLanguage(category);
  const check = (doc: BfclEntry["function"][number], call: ModelCall, expectedCall: BfclExpectedCall) =>
    checkCall(doc, call, expectedCall, language);
  const expected = answer.ground_truth;
  if (calls.length !== expected.length) {
    return failed(
      "wrong-count",
      `made ${callCount(calls.length)} where ${callCount(expected.length)} were expected`,
    );
  }
  if (category.includes("parallel")) return matchParallel(entry, calls, expected, check);
  const expectedCall = expected[0]!;
  const doc = category.includes("multiple")
    ? entry.function.find((fn) => fn.name === expectedName(expectedCall))
    : entry.function[0];
  if (doc === undefined)
    return failed(
      "wrong-function",
      `the answer expects "${expectedName(expectedCall)}", which the entry does not define`,
    );
  return check(doc, calls[0]!, expectedCall);
}
