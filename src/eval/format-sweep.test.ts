import { describe, expect, it } from "vitest";
import { summarizeEval } from "./eval-summary.js";
import { summarizeSweep } from "./format-sweep.js";
import type { EntryResult } from "./run-entry.js";

/** A variant's summary with `passed` of `n` simple_python entries passed. */
function summary(passed: number, n = 200) {
  const results: EntryResult[] = Array.from({ length: n }, (_, i) => ({
    id: `simple_python_${i}`,
    category: "simple_python",
    passed: i < passed,
    calls: [],
    callsMade: 1,
    callsReadable: 1,
    callsSchemaValid: 1,
    callsRepaired: 0,
    reasks: 0,
    ms: 10,
  }));
  return summarizeEval(results);
}

describe("summarizeSweep", () => {
  it("ranks formats, measures the spread as BFCL does and recommends the best over the model's own", () => {
    const sweep = summarizeSweep(
      [
        { variant: { protocol: "native" }, summary: summary(100) },
        { variant: { protocol: "hermes", grammar: true }, summary: summary(160) },
        { variant: { protocol: "hermes", grammar: false }, summary: summary(120) },
      ],
      { protocol: "native" },
    );
    expect(sweep.rows.map((r) => r.key)).toEqual(["hermes+grammar", "hermes-grammar", "native"]);
    expect(sweep.maxDelta).toBe(30);
    // Sample standard deviation of 50, 80, 60 points.
    expect(sweep.std).toBeCloseTo(15.3, 1);
    expect(sweep.gain).toBe(30);
    expect(sweep.recommendation).toBe(
      "use `hermes` with the grammar: +30 points over the model's own format (native tools, 50%).",
    );
  });

  it("recommends nothing when no format got a call right (only irrelevance then tells formats apart)", () => {
    const irrelevance = (passed: number) => {
      const base = summary(0, 10);
      const results = summarizeEval([]);
      return {
        ...results,
        ...base,
        categories: [
          ...base.categories,
          { category: "irrelevance" as const, entries: 10, passed, accuracy: passed / 10, failures: {} },
        ],
        scores: { ...base.scores, irrelevance: passed / 10, overall: passed / 20 },
      };
    };
    const sweep = summarizeSweep(
      [
        { variant: { protocol: "native" }, summary: irrelevance(2) },
        { variant: { protocol: "xlam" }, summary: irrelevance(9) },
      ],
      { protocol: "native" },
    );
    expect(sweep.conclusive).toBe(false);
    expect(sweep.recommendation).toMatch(
      /^none: in no format did the model get one of the 10 entries whose calls are checked right/,
    );
  });

  it("recommends only a format the model got a call right in, even when one without calls ranks higher", () => {
    const mixed = (right: number, irrelevant: number) => {
      const base = summary(right, 10);
      return {
        ...base,
        categories: [
          ...base.categories,
          {
            category: "irrelevance" as const,
            entries: 10,
            passed: irrelevant,
            accuracy: irrelevant / 10,
            failures: {},
          },
        ],
        scores: { ...base.scores, irrelevance: irrelevant / 10, overall: (right / 10 + irrelevant / 10) / 2 },
      };
    };
    const sweep = summarizeSweep(
      [
        { variant: { protocol: "native" }, summary: mixed(1, 2) },
        { variant: { protocol: "xlam" }, summary: mixed(0, 10) },
        { variant: { protocol: "hermes", grammar: true }, summary: mixed(4, 3) },
      ],
      { protocol: "native" },
    );
    expect(sweep.rows[0]!.key).toBe("xlam");
    expect(sweep.best.key).toBe("hermes+grammar");
    expect(sweep.recommendation).toMatch(
      /^use `hermes` with the grammar: \+20 points over the model's own format/,
    );
  });

  it("keeps the model's own format when nothing beats it, and says when a gain may be chance", () => {
    const kept = summarizeSweep(
      [
        { variant: { protocol: "native" }, summary: summary(100) },
        { variant: { protocol: "xlam" }, summary: summary(100) },
      ],
      { protocol: "native" },
    );
    expect(kept.best.key).toBe("native");
    expect(kept.recommendation).toBe(
      "keep the model's own format (native tools, 50%): no format it got a call right in scored higher.",
    );
    const noisy = summarizeSweep(
      [
        { variant: { protocol: "native" }, summary: summary(5, 10) },
        { variant: { protocol: "xlam" }, summary: summary(7, 10) },
      ],
      { protocol: "native" },
    );
    expect(noisy.recommendation).toMatch(/use `xlam`: \+20 points .* within the margin of error/);
  });
});
