import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ToolCallProtocol } from "../../src/protocols/protocol.js";
import { listProtocols } from "../../src/protocols/protocol-registry.js";
import { loadProtocolFixtures } from "./load-protocol-fixtures.js";

const corpus = [...loadProtocolFixtures().values()].flat().map((f) => f.text);
/** Pieces of markup from every format, spliced into random text to reach the parsers' odd states. */
const MARKUP = [
  "<tool_call>",
  "</tool_call>",
  "<tool>",
  "</tool>",
  "<think>",
  "</think>",
  '{"tool_calls": [',
  '{"tool_call": ',
  '{"name": "f", "arguments": ',
  '{"type":"tool_call","name":"f","arguments":',
  "||call: f(",
  "[f(a=",
  "```json\n",
  "```",
  "<|python_tag|>",
  "<|python_start|>",
  "<|python_end|>",
  '"',
  "'",
  "\\",
  "{",
  "}",
  "[",
  "]",
  "(",
  ")",
  ",",
  ":",
  "\n",
  '"""',
  "\u0000",
  "😀",
];

const mutated = fc
  .tuple(
    fc.constantFrom(...corpus),
    fc.array(
      fc.tuple(
        fc.nat(),
        fc.nat({ max: 6 }),
        fc.oneof(fc.constantFrom(...MARKUP), fc.string({ maxLength: 4 })),
      ),
      { minLength: 1, maxLength: 6 },
    ),
  )
  .map(([text, edits]) => {
    let t = text;
    for (const [at, del, ins] of edits) {
      const i = t.length === 0 ? 0 : at % (t.length + 1);
      t = t.slice(0, i) + ins + t.slice(i + del);
    }
    return t;
  });

const randomOutput = fc.oneof(
  { weight: 3, arbitrary: mutated },
  {
    weight: 1,
    arbitrary: fc
      .array(fc.oneof(fc.constantFrom(...MARKUP), fc.string({ maxLength: 8 })), { maxLength: 30 })
      .map((a) => a.join("")),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 200, unit: "binary" }) },
);

function runParser(p: ToolCallProtocol, text: string, chunk: number, prefix?: string): number {
  const parser = p.createParser(prefix ? { prefix } : {});
  let events = 0;
  for (let i = 0; i < text.length; i += chunk) events += parser.push(text.slice(i, i + chunk)).length;
  events += parser.end().length;
  return events;
}

describe.each(listProtocols().map((p) => [p.id, p] as const))("never throws: %s", (_id, protocol) => {
  it("10,000 random and mutated outputs, in random chunk sizes, parse without an exception", () => {
    fc.assert(
      fc.property(randomOutput, fc.integer({ min: 1, max: 9 }), fc.boolean(), (text, chunk, think) => {
        runParser(protocol, text, chunk, think ? "<think>" : undefined);
      }),
      { numRuns: 10_000 },
    );
  });

  it("cost per character stays flat as output grows", () => {
    const unit = corpus.join("\n") + "\n";
    const time = (reps: number) => {
      const text = unit.repeat(reps);
      const t0 = performance.now();
      runParser(protocol, text, 3);
      return (performance.now() - t0) / text.length;
    };
    time(50); // warm-up (JIT)
    const small = Math.min(time(30), time(30), time(30));
    const large = Math.min(time(300), time(300));
    // Generous bound: a quadratic parser would be ~10× slower per character at 10× size.
    expect(large / small).toBeLessThan(3);
  });
});
