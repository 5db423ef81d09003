import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../../src/protocols/parse-tool-calls.js";
import { listProtocols } from "../../src/protocols/protocol-registry.js";
import { type BfclCall, groundTruthCalls, loadBfclCategory } from "../helpers/bfcl.js";

const CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple"] as const;

const entries: { id: string; calls: BfclCall[] }[] = CATEGORIES.flatMap((cat) =>
  loadBfclCategory(cat).map((c) => ({ id: c.entry.id, calls: groundTruthCalls(c) })),
);

describe.each(listProtocols().map((p) => [p.id, p] as const))("BFCL round trip: %s", (_id, protocol) => {
  it(`renders and parses back every python ground-truth call (${entries.length} entries)`, () => {
    const failures: string[] = [];
    let i = 0;
    for (const { id, calls } of entries) {
      const rendered = protocol.renderAssistantTurn({
        calls: calls.map((c) => ({ id: `call_${i++}`, name: c.name, arguments: c.arguments })),
      });
      const parsed = parseToolCalls(protocol, rendered);
      const got = parsed.calls.map((c) => ({ name: c.name, arguments: c.arguments }));
      const want = calls.map((c) => ({ name: c.name, arguments: c.arguments }));
      try {
        expect(got).toEqual(want);
        expect(parsed.errors).toEqual([]);
        expect(parsed.content).toBe("");
      } catch {
        failures.push(`${id}: ${rendered.slice(0, 300)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
