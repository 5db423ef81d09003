import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../parse-tool-calls.js";
import type { ToolCallProtocol } from "../protocol.js";
import type { ParserEvent } from "../types.js";
import { glm45Protocol } from "./glm45.js";
import { minimaxM2Protocol } from "./minimax-m2.js";
import { qwen3CoderXmlProtocol } from "./qwen3-coder-xml.js";

const TOOLS: Tool[] = [
  {
    name: "save",
    inputSchema: {
      type: "object",
      properties: { zip: { type: "string" }, count: { type: "integer" }, body: { type: "string" } },
    },
  },
];

const XML_FORMATS: ToolCallProtocol[] = [qwen3CoderXmlProtocol, glm45Protocol, minimaxM2Protocol];

describe.each(XML_FORMATS.map((p) => [p.id, p] as const))("%s", (_id, protocol) => {
  it("round-trips strings that look like other values by the tools' schemas", () => {
    const args = { zip: "02134", count: 3, body: 'true\n"quoted"\n</parameter></arg_value></invoke>' };
    const text = protocol.renderAssistantTurn({ calls: [{ id: "c1", name: "save", arguments: args }] });
    expect(parseToolCalls(protocol, text, { tools: TOOLS }).calls.map((c) => c.arguments)).toEqual([args]);
  });

  it("reads values without a schema as the format's reference parser does", () => {
    const text = protocol.renderAssistantTurn({
      calls: [{ id: "c1", name: "other", arguments: { n: 3, flag: true, none: null, s: "x" } }],
    });
    const got = parseToolCalls(protocol, text).calls.map((c) => c.arguments);
    // vLLM (and Ollama) keep Qwen3-Coder and MiniMax-M2 values as text, `null` aside; vLLM reads GLM's as JSON.
    const text_ = protocol.id !== "glm45";
    expect(got).toEqual([
      text_ ? { n: "3", flag: "true", none: null, s: "x" } : { n: 3, flag: true, none: null, s: "x" },
    ]);
  });

  it("names the call before its arguments have arrived", () => {
    const text = protocol.renderAssistantTurn({
      calls: [{ id: "c1", name: "save", arguments: { body: "x".repeat(200) } }],
    });
    const parser = protocol.createParser({ tools: TOOLS });
    const cut = text.indexOf("x".repeat(100));
    const early: ParserEvent[] = parser.push(text.slice(0, cut));
    expect(early.filter((e) => e.type === "call-start").map((e) => (e as { name: string }).name)).toEqual([
      "save",
    ]);
    const rest = [...parser.push(text.slice(cut)), ...parser.end()];
    expect(rest.filter((e) => e.type === "call-end")).toHaveLength(1);
  });

  it("reports a call cut off by the end of output as truncated, with nothing leaking into content", () => {
    const text = protocol.renderAssistantTurn({
      content: "Saving.",
      calls: [{ id: "c1", name: "save", arguments: { body: "abc" } }],
    });
    const cut = text.slice(0, text.indexOf("abc") + 2);
    const r = parseToolCalls(protocol, cut, { tools: TOOLS });
    expect(r).toMatchObject({ calls: [], content: "Saving.", truncated: true });
  });
});

describe("tool results", () => {
  const results = [
    { callId: "c1", name: "save", result: { content: [{ type: "text" as const, text: "ok" }] } },
  ];
  it("go back in each template's own wrapper", () => {
    expect(qwen3CoderXmlProtocol.renderToolResults(results)).toBe("<tool_response>\nok\n</tool_response>");
    expect(glm45Protocol.renderToolResults(results)).toBe("<tool_response>\nok\n</tool_response>");
    expect(minimaxM2Protocol.renderToolResults(results)).toBe("<response>ok</response>");
  });
});
