import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectParseResult, parseToolCalls } from "../parse-tool-calls.js";
import type { ParserEvent, ToolCall } from "../types.js";
import { functionaryV31Protocol as v31, functionaryV32Protocol as v32 } from "./functionary.js";

const calls: ToolCall[] = [
  { id: "a", name: "get_weather", arguments: { city: "Paris" } },
  { id: "b", name: "python", arguments: { code: "print(1 + 1)" } },
];
const strip = (r: ReturnType<typeof parseToolCalls>) => ({
  ...r,
  calls: r.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
  errors: r.errors.length,
});

describe("functionary_v3_1", () => {
  it("renders calls as the v3.1 chat template does, the code call last after <|python_tag|>", () => {
    expect(v31.renderAssistantTurn({ content: "Sure.", calls })).toBe(
      'Sure.<function=get_weather>{"city":"Paris"}</function><|python_tag|>print(1 + 1)',
    );
  });

  it("writes code that would not read back as bare code (a leading brace) as a function call", () => {
    const call = { id: "c", name: "python", arguments: { code: "{1: 2}" } };
    const text = v31.renderAssistantTurn({ calls: [call] });
    expect(text).toBe('<function=python>{"code":"{1: 2}"}</function>');
    expect(parseToolCalls(v31, text).calls[0]?.arguments).toEqual({ code: "{1: 2}" });
  });

  it("puts <|python_tag|> code into the python tool's only string parameter", () => {
    const tools = [
      {
        name: "python",
        inputSchema: { type: "object" as const, properties: { script: { type: "string" } } },
      },
    ];
    const r = parseToolCalls(v31, "<|python_tag|>print(3)<|eom_id|>", { tools });
    expect(r.calls[0]?.arguments).toEqual({ script: "print(3)" });
  });
});

describe("functionary_v3_2", () => {
  it("renders text and calls as >>> segments and reads them back", () => {
    const text = v32.renderAssistantTurn({ content: "Checking.", calls });
    expect(text).toBe('>>>all\nChecking.>>>get_weather\n{"city":"Paris"}>>>python\nprint(1 + 1)');
    const r = parseToolCalls(v32, text);
    expect(r.content).toBe("Checking.");
    expect(r.calls.map((c) => [c.name, c.arguments])).toEqual(calls.map((c) => [c.name, c.arguments]));
  });

  it("starts the call as soon as the recipient line ends when the prompt ended with >>>", () => {
    const p = v32.createParser({ prefix: ">>>" });
    const events = [...p.push("get_weather\n"), ...p.push('{"city": "Pa')];
    expect(events.find((e) => e.type === "call-start")).toMatchObject({ name: "get_weather" });
    expect(events.some((e) => e.type === "call-end")).toBe(false);
  });

  it("reads the first segment as text when the prompt did not end with >>>", () => {
    expect(parseToolCalls(v32, 'get_weather\n{"city": "Paris"}').calls).toEqual([]);
  });
});

describe("functionary streaming", () => {
  const seeds = [
    'all\nOk.>>>get_weather\n{"city": "Paris"}>>>python\nprint(1)>>>all\ndone',
    '<function=a>{"x": "</function>"}</function><|python_tag|>x = 1<|eom_id|>',
  ];
  const pieces = [
    ">>>",
    "all\n",
    "python\n",
    "<function=",
    "</function>",
    "<|python_tag|>",
    "{",
    "}",
    '"',
    "\n",
    "\\",
  ];
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

  it("gives the same result in any chunking as in one piece, with and without the >>> prefix", () => {
    fc.assert(
      fc.property(
        mutated,
        fc.integer({ min: 1, max: 7 }),
        fc.boolean(),
        fc.boolean(),
        (text, size, useV32, pre) => {
          const protocol = useV32 ? v32 : v31;
          const opts = pre ? { prefix: ">>>" } : {};
          const p = protocol.createParser(opts);
          const events: ParserEvent[] = [];
          for (let i = 0; i < text.length; i += size) events.push(...p.push(text.slice(i, i + size)));
          events.push(...p.end());
          expect(strip(collectParseResult(events))).toEqual(strip(parseToolCalls(protocol, text, opts)));
        },
      ),
      { numRuns: 1500 },
    );
  });
});
