import { describe, expect, it } from "vitest";
import { selectCases, spreadIndices } from "./run-eval.js";

describe("selectCases", () => {
  it("spreads --limit over each category, and a larger limit keeps the smaller one's entries", () => {
    expect(spreadIndices(400, 4)).toEqual([0, 100, 200, 300]);
    expect(spreadIndices(10, 10)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const [small, large] of [
      [2, 3],
      [5, 13],
      [7, 50],
    ] as const) {
      const kept = spreadIndices(258, small);
      expect(spreadIndices(258, large)).toEqual(expect.arrayContaining(kept));
      expect(new Set(spreadIndices(258, large)).size).toBe(large);
    }
    const cases = selectCases(["simple_python", "live_relevance"], 3);
    expect(cases.map((c) => c.entry.id)).toEqual([
      "simple_python_0",
      "simple_python_100",
      "simple_python_200",
      "live_relevance_0-0-0",
      "live_relevance_4-4-0",
      "live_relevance_8-8-0",
    ]);
  });
});
