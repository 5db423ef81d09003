import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../parse-tool-calls.js";
import { getProtocol } from "../protocol-registry.js";
import { formatGemmaValue, parseGemmaArguments } from "./shared-gemma-call-syntax.js";

const FORMATS = [
  ["gemma4", '<|"|>'],
  ["functiongemma", "<escape>"],
] as const;

/** Values the syntax can carry: strings (without markup), safe integers, finite numbers, booleans, null, nesting. */
const key = fc.stringMatching(/^[a-z_][a-z0-9_]{0,8}$/);
const value = fc.letrec((tie) => ({
  v: fc.oneof(
    { depthSize: "small" },
    fc.string({ maxLength: 12 }).filter((s) => !s.includes("<")),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e6, max: 1e6 }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("v"), { maxLength: 3 }),
    fc.dictionary(key, tie("v"), { maxKeys: 3 }),
  ),
})).v;

describe.each(FORMATS)("%s call syntax", (id, quote) => {
  it("any arguments written as the template writes them read back unchanged (no schema)", () => {
    const protocol = getProtocol(id);
    fc.assert(
      fc.property(fc.dictionary(key, value, { maxKeys: 4 }), (args) => {
        const text = protocol.renderAssistantTurn({ calls: [{ id: "c", name: "f", arguments: args }] });
        const r = parseToolCalls(id, text);
        expect(r.errors).toEqual([]);
        expect(r.calls.map((c) => c.arguments)).toEqual([JSON.parse(JSON.stringify(args))]);
      }),
      { numRuns: 300 },
    );
  });

  it("a quoted value stays a string without a schema, and the schema coerces it", () => {
    const text = getProtocol(id).renderAssistantTurn({
      calls: [{ id: "c", name: "get", arguments: { n: "3", flag: "true" } }],
    });
    expect(parseToolCalls(id, text).calls[0]?.arguments).toEqual({ n: "3", flag: "true" });
    const tools = [
      {
        name: "get",
        inputSchema: {
          type: "object" as const,
          properties: { n: { type: "integer" }, flag: { type: "boolean" } },
        },
      },
    ];
    expect(parseToolCalls(id, text, { tools }).calls[0]?.arguments).toEqual({ n: 3, flag: true });
  });

  it("a string delimiter split across chunks at any point never leaks and changes nothing", () => {
    const protocol = getProtocol(id);
    const text = `Sure. ${protocol.renderAssistantTurn({ calls: [{ id: "c", name: "say", arguments: { text: "a}b]c{", n: 1 } }] })} Done.`;
    const oneShot = parseToolCalls(id, text);
    expect(oneShot.calls.map((c) => c.arguments)).toEqual([{ text: "a}b]c{", n: 1 }]);
    for (let cut = 1; cut < text.length; cut++) {
      const parser = protocol.createParser();
      const events = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut)), ...parser.end()];
      const content = events.flatMap((e) => (e.type === "content" ? [e.text] : [])).join("");
      expect(content.includes(quote) || content.includes("call:")).toBe(false);
      const calls = events.flatMap((e) => (e.type === "call-end" ? [e.call.arguments] : []));
      expect(calls).toEqual([{ text: "a}b]c{", n: 1 }]);
    }
  });
});

describe("parseGemmaArguments", () => {
  it("reads None/null, JSON-quoted strings and keeps numbers a double cannot hold as their text", () => {
    expect(parseGemmaArguments('{a:None,b:"x\\"y",c:1e999,d:-0.5,e:[]}', '<|"|>')).toEqual({
      ok: true,
      value: { a: null, b: 'x"y', c: "1e999", d: -0.5, e: [] },
    });
  });

  it("reports what is wrong instead of guessing", () => {
    expect(parseGemmaArguments('{a:<|"|>open}', '<|"|>')).toMatchObject({ ok: false, error: /not closed/ });
    expect(parseGemmaArguments("{a:1,b}", '<|"|>')).toMatchObject({ ok: false, error: /no ":"/ });
    expect(parseGemmaArguments("{a:}", '<|"|>')).toMatchObject({ ok: false, error: /missing/ });
  });

  it("formats values as the template's format_argument does", () => {
    expect(formatGemmaValue({ city: "Paris", n: [1, true, null] }, "<escape>")).toBe(
      "{city:<escape>Paris<escape>,n:[1,true,null]}",
    );
  });
});
