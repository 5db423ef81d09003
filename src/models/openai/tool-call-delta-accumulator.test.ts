import { describe, expect, it } from "vitest";
import { ToolCallDeltaAccumulator } from "./tool-call-delta-accumulator.js";

function run(deltas: Parameters<ToolCallDeltaAccumulator["feed"]>[0][]) {
  const acc = new ToolCallDeltaAccumulator();
  const events = [...deltas.flatMap((d) => acc.feed(d)), ...acc.finish()];
  return events.flatMap((e) => (e.type === "call-end" ? [[e.id, e.name, e.arguments]] : []));
}

describe("ToolCallDeltaAccumulator", () => {
  it("keeps a name repeated on every fragment as one call, and fragments without index as the last call", () => {
    expect(
      run([
        { index: 0, id: "c1", function: { name: "f", arguments: '{"a":' } },
        { index: 0, id: "c1", function: { name: "f", arguments: "1}" } },
      ]),
    ).toEqual([["c1", "f", '{"a":1}']]);
    expect(
      run([{ id: "c1", function: { name: "f", arguments: '{"a"' } }, { function: { arguments: ":2}" } }]),
    ).toEqual([["c1", "f", '{"a":2}']]);
  });

  it("splits calls that reuse index 0 without ids once the first call's arguments are complete", () => {
    const calls = run([
      { index: 0, function: { name: "f", arguments: '{"a":1}' } },
      { index: 0, function: { name: "f", arguments: '{"a":2}' } },
    ]);
    expect(calls.map((c) => c[2])).toEqual(['{"a":1}', '{"a":2}']);
    expect(calls[0]?.[0]).not.toBe(calls[1]?.[0]);
  });
});
