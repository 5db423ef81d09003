import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectParseResult, parseToolCalls } from "../parse-tool-calls.js";
import type { ParserEvent, ToolCall } from "../types.js";
import { mistralCallId, mistralV3Protocol as v3, mistralV11Protocol as v11 } from "./mistral.js";

const calls: ToolCall[] = [
  { id: "call_0123456789abcdef", name: "get_weather", arguments: { city: "Paris" } },
  { id: "Xy12AbC9z", name: "get_time", arguments: {} },
];
const result = (text: string) => ({ content: [{ type: "text" as const, text }] });

describe("mistralCallId", () => {
  it("keeps a 9-alphanumeric id and maps any other id to a stable one of that shape", () => {
    expect(mistralCallId("Xy12AbC9z")).toBe("Xy12AbC9z");
    const mapped = mistralCallId("call_0123456789abcdef");
    expect(mapped).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(mistralCallId("call_0123456789abcdef")).toBe(mapped);
    expect(mistralCallId("call_0123456789abcdeg")).not.toBe(mapped);
  });
});

describe("mistral_v3", () => {
  it("gives a call and its result the same 9-character id, as Mistral's template requires", () => {
    const turn = v3.renderAssistantTurn({ content: "Checking.", calls });
    const id = mistralCallId(calls[0]!.id);
    expect(turn).toBe(
      `Checking.[TOOL_CALLS][{"name":"get_weather","arguments":{"city":"Paris"},"id":"${id}"},{"name":"get_time","arguments":{},"id":"Xy12AbC9z"}]`,
    );
    expect(
      v3.renderToolResults([{ callId: calls[0]!.id, name: "get_weather", result: result('{"temp": 21}') }]),
    ).toBe(`[TOOL_RESULTS]{"content":{"temp":21},"call_id":"${id}"}[/TOOL_RESULTS]`);
  });

  it("names a call as soon as its name is read, before the arguments arrive", () => {
    const p = v3.createParser();
    const events = p.push('[TOOL_CALLS][{"name": "get_weather", "arguments": {"ci');
    expect(events.find((e) => e.type === "call-start")).toMatchObject({ name: "get_weather", index: 0 });
  });
});

describe("mistral_v11", () => {
  it("renders one [TOOL_CALLS]name[ARGS]{…} per call and reads them back", () => {
    const turn = v11.renderAssistantTurn({ content: "Checking.", calls });
    expect(turn).toBe('Checking.[TOOL_CALLS]get_weather[ARGS]{"city":"Paris"}[TOOL_CALLS]get_time[ARGS]{}');
    const r = parseToolCalls(v11, turn);
    expect(r.content).toBe("Checking.");
    expect(r.calls.map((c) => [c.name, c.arguments])).toEqual(calls.map((c) => [c.name, c.arguments]));
    expect(v11.renderToolResults([{ callId: "x", name: "get_time", result: result("12:00") }])).toBe(
      "[TOOL_RESULTS]12:00[/TOOL_RESULTS]",
    );
  });

  it("uses the id the model wrote after [CALL_ID] as the call's id", () => {
    const r = parseToolCalls(v11, '[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Rome"}');
    expect(r.calls[0]).toEqual({ id: "a1b2c3d4e", name: "get_weather", arguments: { city: "Rome" } });
  });

  it("streams argument text of a v11 call as deltas after the name", () => {
    const p = v11.createParser();
    const events = [
      ...p.push("[TOOL_CALLS]get_weather[ARGS]"),
      ...p.push('{"city": "Ro'),
      ...p.push('me"}'),
      ...p.end(),
    ];
    expect(events[0]).toMatchObject({ type: "call-start", name: "get_weather" });
    const deltas = events
      .filter((e) => e.type === "call-args-delta")
      .map((e) => (e as { text: string }).text);
    expect(deltas.join("")).toBe('{"city": "Rome"}');
  });
});

describe("mistral streaming", () => {
  const seeds = [
    '[THINK]plan[/THINK]Ok.[TOOL_CALLS]get_weather[CALL_ID]a1b2c3d4e[ARGS]{"city": "Paris"}[TOOL_CALLS]t{}</s>',
    '[TOOL_CALLS] [{"name": "a", "arguments": {"s": "[TOOL_CALLS]"}, "id": "abcdefghi"}]',
  ];
  const pieces = [
    "[TOOL_CALLS]",
    "[ARGS]",
    "[CALL_ID]",
    "[THINK]",
    "[/THINK]",
    "</s>",
    "{",
    "}",
    "[",
    "]",
    '"',
    "x",
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
  const strip = (r: ReturnType<typeof parseToolCalls>) => ({
    ...r,
    calls: r.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
    errors: r.errors.length,
  });

  it("gives the same result in any chunking as in one piece, also when the prompt ended with [THINK]", () => {
    fc.assert(
      fc.property(mutated, fc.integer({ min: 1, max: 7 }), fc.boolean(), (text, size, think) => {
        const opts = think ? { prefix: "[THINK]" } : {};
        const p = v11.createParser(opts);
        const events: ParserEvent[] = [];
        for (let i = 0; i < text.length; i += size) events.push(...p.push(text.slice(i, i + size)));
        events.push(...p.end());
        expect(strip(collectParseResult(events))).toEqual(strip(parseToolCalls(v11, text, opts)));
      }),
      { numRuns: 1500 },
    );
  });
});
