import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../../src/protocols/parse-tool-calls.js";
import { listProtocols } from "../../src/protocols/protocol-registry.js";
import { convertBfclFunctionToTool } from "../../src/tools/bfcl-schema.js";
import { type BfclCall, groundTruthCalls, loadBfclCategory } from "../helpers/bfcl.js";

const CATEGORIES = ["simple_python", "multiple", "parallel", "parallel_multiple"] as const;

// With the entry's tools, as a model is always prompted: formats whose text values carry no type (Qwen3-Coder,
// MiniMax-M2) read them by the schema, as their reference parsers do.
const entries: { id: string; calls: BfclCall[]; tools: Tool[] }[] = CATEGORIES.flatMap((cat) =>
  loadBfclCategory(cat).map((c) => ({
    id: c.entry.id,
    calls: groundTruthCalls(c),
    tools: c.entry.function.map(convertBfclFunctionToTool),
  })),
);

describe.each(listProtocols().map((p) => [p.id, p] as const))("BFCL round trip: %s", (_id, protocol) => {
  it(`renders and parses back every python ground-truth call (${entries.length} entries)`, () => {
    const failures: string[] = [];
    let i = 0;
    for (const { id, calls, tools } of entries) {
      const rendered = protocol.renderAssistantTurn({
        calls: calls.map((c) => ({ id: `call_${i++}`, name: c.name, arguments: c.arguments })),
      });
      const parsed = parseToolCalls(protocol, rendered, { tools });
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
