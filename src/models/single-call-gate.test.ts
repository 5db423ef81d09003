import { describe, expect, it } from "vitest";
import { SingleCallGate } from "./single-call-gate.js";

describe("SingleCallGate", () => {
  it("passes events up to the end of the first call, then only the finish", () => {
    const gate = new SingleCallGate(true);
    expect(
      gate.read([
        { type: "text-delta", text: "ok " },
        { type: "call-start", id: "a", name: "t" },
      ]),
    ).toHaveLength(2);
    expect(gate.closed).toBe(false);
    const rest = gate.read([
      { type: "call-end", id: "a", name: "t", arguments: {} },
      { type: "text-delta", text: "\n" },
      { type: "call-start", id: "b", name: "t" },
      { type: "call-error", id: "b", name: "t", message: "cut off" },
      { type: "finish", reason: "tool-calls" },
    ]);
    expect(rest.map((e) => e.type)).toEqual(["call-end", "finish"]);
    expect(gate.closed).toBe(true);
  });

  it("passes everything when parallel calls are allowed", () => {
    const gate = new SingleCallGate(false);
    const events = [
      { type: "call-end", id: "a", name: "t", arguments: {} },
      { type: "call-end", id: "b", name: "t", arguments: {} },
    ] as const;
    expect(gate.read(events)).toHaveLength(2);
    expect(gate.closed).toBe(false);
  });
});
