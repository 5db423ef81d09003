import { describe, expect, it } from "vitest";
import type { BfclCategory } from "./bfcl-dataset.js";
import { bfclScores, summarizeEval } from "./eval-summary.js";
import type { EntryResult } from "./run-entry.js";

const score = (category: BfclCategory, passed: number, entries: number) => ({
  category,
  entries,
  passed,
  accuracy: passed / entries,
  failures: {},
});

describe("BFCL's summary scores", () => {
  it("weighs categories as the leaderboard does, over the groups that ran", () => {
    const scores = bfclScores([
      score("simple_python", 40, 40), // simple = mean(1, 0.5, 0) = 0.5
      score("simple_java", 5, 10),
      score("simple_javascript", 0, 10),
      score("multiple", 10, 10),
      score("parallel", 0, 10),
      score("parallel_multiple", 5, 10),
      score("irrelevance", 8, 10),
      score("live_simple", 9, 10), // live = (9 + 1) / (10 + 90), weighted by entries
      score("live_multiple", 1, 90),
      score("live_irrelevance", 4, 10),
      score("live_relevance", 3, 4),
    ]);
    expect(scores.simple).toBeCloseTo(0.5);
    expect(scores.nonLive).toBeCloseTo((0.5 + 1 + 0 + 0.5) / 4);
    expect(scores.live).toBeCloseTo(0.1);
    expect(scores.irrelevance).toBeCloseTo(0.6);
    expect(scores.relevance).toBeCloseTo(0.75);
    expect(scores.overall).toBeCloseTo((0.5 + 0.1 + 0.6) / 3);
    expect(bfclScores([score("live_relevance", 1, 2)])).toEqual({ relevance: 0.5 });
  });

  it("counts failures by class, calls, tokens and time per entry", () => {
    const entry = (id: string, passed: boolean, extra: Partial<EntryResult> = {}): EntryResult => ({
      id,
      category: "multiple",
      passed,
      calls: [],
      callsMade: 1,
      callsReadable: 1,
      callsSchemaValid: passed ? 1 : 0,
      callsRepaired: 0,
      reasks: 0,
      ms: 100,
      inputTokens: 50,
      outputTokens: 10,
      ...extra,
    });
    const summary = summarizeEval([
      entry("multiple_0", true),
      entry("multiple_1", false, { failure: { class: "wrong-value", message: "" }, ms: 300 }),
      entry("multiple_2", false, {
        failure: { class: "no-call", message: "" },
        callsMade: 0,
        callsReadable: 0,
      }),
    ]);
    expect(summary.categories).toEqual([
      {
        category: "multiple",
        entries: 3,
        passed: 1,
        accuracy: 1 / 3,
        failures: { "no-call": 1, "wrong-value": 1 },
      },
    ]);
    expect(summary.calls).toEqual({ made: 2, readable: 2, schemaValid: 1, repaired: 0 });
    expect(summary.tokens).toEqual({ input: 50, output: 10 });
    expect(summary.time).toMatchObject({ totalMs: 500, p50Ms: 100, p95Ms: 300 });
  });
});
