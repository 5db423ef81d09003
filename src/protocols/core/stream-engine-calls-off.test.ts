import { describe, expect, it } from "vitest";
import { listProtocols } from "../protocol-registry.js";
import type { ParserEvent } from "../types.js";

const LOOKUP = {
  name: "lookup",
  inputSchema: { type: "object" as const, properties: { word: { type: "string" } } },
};

/**
 * Section tokens (`<｜tool▁calls▁begin｜>`) some formats drop as markup that carries nothing, in every mode: the call
 * inside still comes back as written.
 */
const DROPS_SECTION_TOKENS = new Set(["deepseek_r1", "deepseek_v3_1"]);

function parse(id: string, text: string, size: number): ParserEvent[] {
  const protocol = listProtocols().find((p) => p.id === id)!;
  const parser = protocol.createParser({ tools: [LOOKUP], calls: false });
  const events: ParserEvent[] = [];
  for (let at = 0; at < text.length; at += size) events.push(...parser.push(text.slice(at, at + size)));
  events.push(...parser.end());
  return events;
}

const content = (events: ParserEvent[]) =>
  events
    .filter((e) => e.type === "content")
    .map((e) => (e as { text: string }).text)
    .join("");

// With no tool offered, nothing the model writes is a call: call markup is the model's text, and is shown as written.
describe.each(listProtocols().map((p) => p.id))("%s parser with calls: false", (id) => {
  const protocol = listProtocols().find((p) => p.id === id)!;
  const call = protocol.renderAssistantTurn({
    calls: [{ id: "call_1", name: "lookup", arguments: { word: "hi" } }],
  });
  const text = `Before. ${call} after`;

  it.each([1, 3, 1000])("gives a rendered call back as content, in pieces of %i", (size) => {
    const events = parse(id, text, size);
    expect(events.filter((e) => e.type !== "content")).toEqual([]);
    if (DROPS_SECTION_TOKENS.has(id)) {
      expect(content(events)).toContain("lookup");
      expect(content(events)).toMatch(/^Before\. [\s\S]*hi[\s\S]* after$/);
    } else expect(content(events)).toBe(text);
  });

  it("gives call markup cut off by the end of the output back as content", () => {
    const cut = text.slice(0, text.indexOf("hi") + 1);
    const events = parse(id, cut, 4);
    expect(events.filter((e) => e.type !== "content")).toEqual([]);
    if (!DROPS_SECTION_TOKENS.has(id)) expect(content(events)).toBe(cut);
  });
});

describe("calls: false keeps reasoning", () => {
  it("hermes: <think> is still reasoning, the call after it content", () => {
    const events = parse(
      "hermes",
      '<think>plan</think>Sure <tool_call>{"name": "lookup", "arguments": {}}</tool_call>',
      2,
    );
    expect(
      events
        .filter((e) => e.type === "reasoning")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe("plan");
    expect(content(events)).toBe('Sure <tool_call>{"name": "lookup", "arguments": {}}</tool_call>');
  });
});
