import { describe, expect, it } from "vitest";
import { type BfclEntry, groundTruthCall, groundTruthCalls, loadBfclCategory } from "./bfcl.js";

const entry: BfclEntry = {
  id: "example_0",
  question: [[{ role: "user", content: "..." }]],
  function: [
    {
      name: "room.area",
      parameters: {
        type: "dict",
        properties: {
          area: { type: "dict", properties: { width: { type: "integer" }, height: { type: "integer" } } },
          conditions: { type: "array", items: { type: "dict", properties: { field: { type: "string" } } } },
          raw: { type: "any" },
          unit: { type: "string" },
          note: { type: "string" },
        },
        required: ["area"],
      },
    },
  ],
};

describe("groundTruthCall", () => {
  it("takes first candidates, omits params that may be omitted, flattens dict candidates", () => {
    const call = groundTruthCall(entry, {
      "room.area": {
        area: [{ width: ["", 20], height: [12, 13], depth: [""] }],
        conditions: [[{ field: ["age"] }, { field: ["", "job"] }]],
        raw: [{ k: ["kept as is"] }],
        unit: ["m", "meters"],
        note: ["", "hi"],
      },
    });
    expect(call.name).toBe("room.area");
    expect(call.doc).toBe(entry.function[0]);
    expect(call.arguments).toEqual({
      area: { width: 20, height: 12 },
      conditions: [{ field: "age" }, { field: "job" }],
      raw: { k: ["kept as is"] },
      unit: "m",
    });
  });

  it("rejects a call to a function the entry does not define", () => {
    expect(() => groundTruthCall(entry, { other: {} })).toThrow(/"other", which is not among/);
  });
});

describe("loadBfclCategory", () => {
  it("joins entries with their answers by index and id", () => {
    const cases = loadBfclCategory("parallel");
    expect(cases).toHaveLength(200);
    const last = cases.at(-1)!;
    expect(last.answer?.id).toBe(last.entry.id);
    expect(groundTruthCalls(last).length).toBeGreaterThanOrEqual(2);
    expect(loadBfclCategory("irrelevance").every((c) => c.answer === undefined)).toBe(true);
  });
});
