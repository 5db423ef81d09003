/**
 * Acceptance for `toolbridge eval`'s scoring (issue 33): over every single-turn BFCL v4 category shipped in data/bfcl,
 * - a model that answers with BFCL's own possible answers scores 100% except the entries known_issues.json lists;
 * - a model that always answers in prose scores 100% on irrelevance and 0% everywhere else;
 * - a model that swaps two parameters' values is caught as "wrong value" on that parameter.
 * Each goes through the whole evaluator (tools offered, events streamed, calls decoded, names mapped back, AST rules).
 */
import { describe, expect, it } from "vitest";
import {
  BFCL_CATEGORIES,
  type BfclCase,
  categoryKind,
  loadBfclKnownIssues,
} from "../../src/eval/bfcl-dataset.js";
import { summarizeEval } from "../../src/eval/eval-summary.js";
import { standardizeString } from "../../src/eval/python-semantics.js";
import { runEval, selectCases } from "../../src/eval/run-eval.js";
import { createOracleModel, createProseModel, type OracleCall } from "../helpers/bfcl-oracle.js";

const settings = { reask: 0, repair: false, timeoutMs: 10_000 };
const cases = selectCases(BFCL_CATEGORIES);

describe("BFCL scoring over every single-turn category", { timeout: 180_000 }, () => {
  it("the oracle (BFCL's possible answers replayed as calls) scores 100% except the known issues", async () => {
    const results = await runEval({ model: createOracleModel(cases), cases, settings, concurrency: 4 });
    const known = new Set(loadBfclKnownIssues().checker_inconsistent.map((issue) => issue.id));
    const unexpected = results
      .filter((r) => !r.passed && !known.has(r.id))
      .map((r) => `${r.id}: ${r.failure?.class} ${r.failure?.message}`);
    expect(unexpected).toEqual([]);
    const summary = summarizeEval(results);
    expect(summary.entries).toBe(3641);
    for (const category of summary.categories) {
      const knownHere = results.filter((r) => r.category === category.category && known.has(r.id)).length;
      expect(category.passed, category.category).toBeGreaterThanOrEqual(category.entries - knownHere);
    }
    // Every call the oracle makes in a Python category is readable and reaches the checker under its own name.
    expect(summary.calls.readable).toBe(summary.calls.made);
    console.log(
      `oracle: ${summary.categories.map((c) => `${c.category} ${c.passed}/${c.entries}`).join(", ")}; ` +
        `non-live ${(summary.scores.nonLive! * 100).toFixed(2)}%, live ${(summary.scores.live! * 100).toFixed(2)}%`,
    );
  });

  it("a model that always answers in prose scores 100% on irrelevance and 0% elsewhere", async () => {
    const results = await runEval({ model: createProseModel(), cases, settings, concurrency: 4 });
    const summary = summarizeEval(results);
    for (const category of summary.categories) {
      const expected = categoryKind(category.category) === "irrelevance" ? category.entries : 0;
      expect(category.passed, category.category).toBe(expected);
    }
    expect(summary.scores.irrelevance).toBe(1);
    expect(summary.scores.nonLive).toBe(0);
    expect(summary.scores.live).toBe(0);
    expect(summary.failures["no-call"]).toBe(summary.entries - summary.passed);
  });

  it('a model that swaps two string parameters\' values is caught as "wrong value" on one of them', async () => {
    // Entries with one expected call having two string parameters whose answers cannot be mistaken for each other.
    const swappable = (bfclCase: BfclCase): [string, string] | undefined => {
      const expected = bfclCase.answer?.ground_truth;
      if (expected?.length !== 1) return undefined;
      const params = Object.entries(Object.values(expected[0]!)[0]!).filter(
        ([, candidates]) =>
          candidates.length > 0 && candidates.every((c) => typeof c === "string" && c !== ""),
      );
      for (let i = 0; i < params.length; i++) {
        for (let j = i + 1; j < params.length; j++) {
          const a = new Set(params[i]![1].map((c) => standardizeString(c as string)));
          const b = params[j]![1].map((c) => standardizeString(c as string));
          if (b.every((c) => !a.has(c))) return [params[i]![0], params[j]![0]];
        }
      }
      return undefined;
    };
    const chosen = selectCases(["simple_python", "multiple", "live_simple"]).filter(
      (c) => swappable(c) !== undefined,
    );
    expect(chosen.length).toBeGreaterThan(100);
    const swap = (calls: OracleCall[], bfclCase: BfclCase): OracleCall[] => {
      const [a, b] = swappable(bfclCase)!;
      return calls.map((call) => ({
        ...call,
        arguments: { ...call.arguments, [a]: call.arguments[b], [b]: call.arguments[a] },
      }));
    };
    const results = await runEval({
      model: createOracleModel(chosen, swap),
      cases: chosen,
      settings,
      concurrency: 4,
    });
    const byId = new Map(chosen.map((c) => [c.entry.id, swappable(c)!]));
    const missed = results.filter(
      (r) =>
        r.passed || r.failure?.class !== "wrong-value" || !byId.get(r.id)!.includes(r.failure.param ?? ""),
    );
    expect(missed.map((r) => `${r.id}: ${JSON.stringify(r.failure)}`)).toEqual([]);
  });
});
