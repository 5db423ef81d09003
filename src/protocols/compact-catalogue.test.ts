import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { renderCompactCatalogue, withCompactCatalogue } from "./compact-catalogue.js";
import { hermesProtocol } from "./formats/hermes.js";
import { parseToolCalls } from "./parse-tool-calls.js";

const tools: Tool[] = [
  {
    name: "calculator",
    inputSchema: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] },
  },
  {
    name: "get_time",
    inputSchema: { type: "object", properties: { timezone: { type: "string" }, format: { type: "string" } } },
  },
];

describe("compact catalogue", () => {
  it("lists each tool with its arguments, optional ones marked, and shows the protocol's own call syntax", () => {
    const text = renderCompactCatalogue(hermesProtocol, tools);
    expect(text).toContain("calculator(expression)\nget_time(timezone?, format?)");
    expect(text).toContain('<tool_call>\n{"name":"NAME","arguments":{}}\n</tool_call>');
    expect(text.length).toBeLessThan(hermesProtocol.renderCatalogue(tools).length / 2);
  });

  it("changes only the catalogue: calls render and parse as with the plain protocol", () => {
    const compact = withCompactCatalogue(hermesProtocol);
    const turn = { calls: [{ id: "c1", name: "calculator", arguments: { expression: "2+2" } }] };
    expect(compact.renderAssistantTurn(turn)).toBe(hermesProtocol.renderAssistantTurn(turn));
    const parsed = parseToolCalls(compact, compact.renderAssistantTurn(turn));
    expect(parsed.calls.map((c) => [c.name, c.arguments])).toEqual([["calculator", { expression: "2+2" }]]);
    expect(compact.renderCatalogue(tools, { parallel: false })).toContain(
      "Call at most one function per turn.",
    );
  });
});
