import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectParseResult, parseToolCalls } from "../parse-tool-calls.js";
import type { ParserEvent, ToolCall } from "../types.js";
import { llama3BuiltinProtocol as p } from "./llama3-builtin.js";

const tool = (name: string, props: Record<string, { type: string }>) => ({
  name,
  description: `${name} tool`,
  inputSchema: { type: "object" as const, properties: props },
});

describe("llama3_builtin rendering", () => {
  it("writes built-in tools as name.call(…) and code after <|python_tag|>, custom tools as bare JSON (Meta's format)", () => {
    const calls: ToolCall[] = [
      { id: "1", name: "brave_search", arguments: { query: 'say "hi"' } },
      { id: "2", name: "get_weather", arguments: { city: "Paris" } },
      { id: "3", name: "code_interpreter", arguments: { code: "print(2 ** 8)" } },
    ];
    const text = p.renderAssistantTurn({ calls });
    expect(text).toBe(
      '<|python_tag|>brave_search.call(query="say \\"hi\\"")\n' +
        '{"name":"get_weather","parameters":{"city":"Paris"}}\n' +
        "<|python_tag|>print(2 ** 8)",
    );
    expect(parseToolCalls(p, text).calls.map((c) => [c.name, c.arguments])).toEqual(
      calls.map((c) => [c.name, c.arguments]),
    );
  });

  it("does not write code bare when another call follows (the code would swallow it)", () => {
    const calls: ToolCall[] = [
      { id: "1", name: "code_interpreter", arguments: { code: "x = 1" } },
      { id: "2", name: "brave_search", arguments: { query: "x" } },
    ];
    const text = p.renderAssistantTurn({ calls });
    expect(text.split("\n")[0]).toBe(
      '<|python_tag|>{"name":"code_interpreter","parameters":{"code":"x = 1"}}',
    );
    expect(parseToolCalls(p, text).calls).toHaveLength(2);
  });

  it("announces built-in tools on the Tools: line of the ipython environment", () => {
    const text = p.renderCatalogue([
      tool("brave_search", { query: { type: "string" } }),
      tool("wolfram_alpha", { query: { type: "string" } }),
      tool("get_weather", { city: { type: "string" } }),
    ]);
    expect(text.startsWith("Environment: ipython\nTools: brave_search, wolfram_alpha\n")).toBe(true);
    expect(text).toContain('"name": "get_weather"');
    expect(text).not.toContain('"name": "brave_search"');
  });
});

describe("llama3_builtin parsing", () => {
  it("sends code to the code tool the caller offers", () => {
    const r = parseToolCalls(p, "<|python_tag|>print(1)", {
      tools: [tool("python", { code: { type: "string" } })],
    });
    expect(r.calls.map((c) => c.name)).toEqual(["python"]);
  });

  it("treats name(…) after the tag as a call only for offered tools, otherwise as code", () => {
    const tools = [tool("lookup", { term: { type: "string" } })];
    expect(parseToolCalls(p, '<|python_tag|>lookup(term="x")', { tools }).calls[0]).toMatchObject({
      name: "lookup",
      arguments: { term: "x" },
    });
    expect(parseToolCalls(p, '<|python_tag|>lookup(term="x")').calls[0]).toMatchObject({
      name: "code_interpreter",
      arguments: { code: 'lookup(term="x")' },
    });
  });

  it("gives the same result in any chunking as in one piece", () => {
    const seeds = [
      '<|python_tag|>brave_search.call(query="a (b) \\"c\\"")<|eom_id|>',
      '<|python_tag|>{"name": "f", "parameters": {"x": 1}}; {"name": "g", "parameters": {}}',
      "<|python_tag|>import os\nprint(os.getcwd())<|eom_id|>Done.",
    ];
    const pieces = ["<|python_tag|>", "<|eom_id|>", ".call(", "<function=", "{", "}", "(", ")", '"', "\n"];
    const mutated = fc
      .tuple(
        fc.constantFrom(...seeds),
        fc.array(fc.tuple(fc.nat(), fc.nat({ max: 4 }), fc.constantFrom(...pieces)), { maxLength: 5 }),
      )
      .map(([t, edits]) => {
        let s = t;
        for (const [at, del, ins] of edits) {
          const i = at % (s.length + 1);
          s = s.slice(0, i) + ins + s.slice(i + del);
        }
        return s;
      });
    const strip = (r: ReturnType<typeof parseToolCalls>) => ({
      ...r,
      calls: r.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
      errors: r.errors.length,
    });
    fc.assert(
      fc.property(mutated, fc.integer({ min: 1, max: 7 }), (text, size) => {
        const parser = p.createParser();
        const events: ParserEvent[] = [];
        for (let i = 0; i < text.length; i += size) events.push(...parser.push(text.slice(i, i + size)));
        events.push(...parser.end());
        expect(strip(collectParseResult(events))).toEqual(strip(parseToolCalls(p, text)));
      }),
      { numRuns: 1500 },
    );
  });
});
