import { describe, expect, it } from "vitest";
import { collectParseResult, parseToolCalls } from "../parse-tool-calls.js";
import { deepseekV32Protocol } from "./deepseek-v3-2.js";

const D = "｜DSML｜";
const call = (params: string) =>
  `<${D}function_calls>\n<${D}invoke name="set">\n${params}\n</${D}invoke>\n</${D}function_calls>`;
const param = (name: string, string: boolean, value: string) =>
  `<${D}parameter name="${name}" string="${string}">${value}</${D}parameter>`;

describe("deepseek_v3_2 DSML values", () => {
  it('string="true" keeps the text as written without a schema; string="false" reads JSON', () => {
    const text = call(
      [
        param("code", true, "00123"),
        param("n", true, "42"),
        param("on", true, "true"),
        param("k", false, "42"),
      ].join("\n"),
    );
    expect(parseToolCalls("deepseek_v3_2", text).calls[0]?.arguments).toEqual({
      code: "00123",
      n: "42",
      on: "true",
      k: 42,
    });
  });

  it("a schema decides over the attribute", () => {
    const tools = [
      { name: "set", inputSchema: { type: "object" as const, properties: { n: { type: "integer" } } } },
    ];
    expect(
      parseToolCalls("deepseek_v3_2", call(param("n", true, "42")), { tools }).calls[0]?.arguments,
    ).toEqual({
      n: 42,
    });
  });

  it("writes strings as they are and everything else as JSON, and reads both back", () => {
    const args = { city: "Paris", days: 3, tags: ["a"], metric: false, note: "42" };
    const text = deepseekV32Protocol.renderAssistantTurn({
      calls: [{ id: "c", name: "set", arguments: args }],
    });
    expect(text).toContain(param("note", true, "42"));
    expect(text).toContain(param("tags", false, '["a"]'));
    expect(parseToolCalls("deepseek_v3_2", text).calls[0]?.arguments).toEqual(args);
  });

  it('a string="true" value keeps the invoke and section closers it contains, streamed or not', () => {
    const value = `a </${D}invoke>\n</${D}function_calls>\n<${D}invoke name="x"> b`;
    const text = `${call(param("text", true, value))}\nDone.`;
    for (const size of [text.length, 1, 4]) {
      const parser = deepseekV32Protocol.createParser();
      const events = [];
      for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
      events.push(...parser.end());
      const r = collectParseResult(events);
      expect({ size, calls: r.calls.map((c) => c.arguments), content: r.content, errors: r.errors }).toEqual({
        size,
        calls: [{ text: value }],
        content: "Done.",
        errors: [],
      });
    }
  });

  it("a string value whose closing tag never came ends at the invoke closer, as if it were no string", () => {
    const text = `<${D}function_calls>\n<${D}invoke name="set">\n<${D}parameter name="a" string="true">x\n</${D}invoke>\n</${D}function_calls>\nDone.`;
    const r = parseToolCalls("deepseek_v3_2", text);
    expect({ calls: r.calls.map((c) => c.arguments), content: r.content, truncated: r.truncated }).toEqual({
      calls: [{ a: "x\n" }],
      content: "Done.",
      truncated: false,
    });
  });

  it("renders results as the template's <function_results> block", () => {
    const text = deepseekV32Protocol.renderToolResults([
      { callId: "1", name: "a", result: { content: [{ type: "text", text: "one" }] } },
      { callId: "2", name: "b", result: { content: [{ type: "text", text: "two" }] } },
    ]);
    expect(text).toBe("<function_results>\n<result>one</result>\n<result>two</result>\n</function_results>");
  });
});
