import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { collectParseResult, parseToolCalls } from "../../src/protocols/parse-tool-calls.js";
import { getProtocol, hasProtocol } from "../../src/protocols/protocol-registry.js";
import type { ParseResult, ParserEvent } from "../../src/protocols/types.js";
import { loadProtocolFixtures, type ProtocolFixture } from "./load-protocol-fixtures.js";

const fixtures = loadProtocolFixtures();

function comparable(r: ParseResult) {
  return {
    calls: r.calls.map((c) => ({ name: c.name, arguments: c.arguments })),
    content: r.content,
    reasoning: r.reasoning,
    errors: r.errors.length,
    truncated: r.truncated,
  };
}

function parseInChunks(fx: ProtocolFixture, sizes: number[]): { result: ParseResult; events: ParserEvent[] } {
  const parser = getProtocol(fx.format).createParser({ tools: fx.tools, prefix: fx.prefix });
  const events: ParserEvent[] = [];
  let i = 0;
  let k = 0;
  while (i < fx.text.length) {
    const size = sizes[k++ % sizes.length]!;
    events.push(...parser.push(fx.text.slice(i, i + size)));
    i += size;
  }
  events.push(...parser.end());
  return { result: collectParseResult(events), events };
}

/** Events a consumer relies on: every call-end/args-delta/indexed error follows a call-start of that index. */
function checkEventOrder(events: ParserEvent[]): void {
  const started = new Map<number, string>();
  const ended = new Set<number>();
  for (const ev of events) {
    if (ev.type === "call-start") {
      expect(started.has(ev.index)).toBe(false);
      started.set(ev.index, ev.name);
    } else if (ev.type === "call-args-delta") {
      expect(started.has(ev.index) && !ended.has(ev.index)).toBe(true);
    } else if (ev.type === "call-end") {
      expect(started.has(ev.index)).toBe(true);
      expect(ended.has(ev.index)).toBe(false);
      ended.add(ev.index);
    } else if ((ev.type === "parse-error" || ev.type === "truncated") && ev.index !== undefined) {
      expect(started.has(ev.index)).toBe(true);
      ended.add(ev.index);
    }
  }
}

for (const [file, cases] of fixtures) {
  const implemented = cases.length > 0 && hasProtocol(cases[0]!.format);
  describe.skipIf(!implemented)(`corpus ${file}`, () => {
    it("has at least 10 cases", () => {
      expect(cases.length).toBeGreaterThanOrEqual(10);
    });

    for (const fx of cases) {
      it(`${fx.id}: one-shot parse gives the expected calls, content and reasoning`, () => {
        const r = parseToolCalls(fx.format, fx.text, { tools: fx.tools, prefix: fx.prefix });
        expect(comparable(r)).toEqual({ ...fx.expected, truncated: fx.expected.truncated ?? false });
      });
    }

    it("streaming in random chunk sizes equals one-shot, with well-ordered events", () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: cases.length - 1 }),
          fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 20 }),
          (k, sizes) => {
            const fx = cases[k]!;
            const oneShot = parseToolCalls(fx.format, fx.text, { tools: fx.tools, prefix: fx.prefix });
            const { result, events } = parseInChunks(fx, sizes);
            expect(comparable(result)).toEqual(comparable(oneShot));
            checkEventOrder(events);
          },
        ),
        { numRuns: 400 },
      );
    });

    it("one character at a time equals one-shot for every case", () => {
      for (const fx of cases) {
        const oneShot = parseToolCalls(fx.format, fx.text, { tools: fx.tools, prefix: fx.prefix });
        expect(comparable(parseInChunks(fx, [1]).result)).toEqual(comparable(oneShot));
      }
    });
  });
}
