import { describe, expect, it } from "vitest";
import { collectParseResult } from "../parse-tool-calls.js";
import type { ParserEvent } from "../types.js";
import { RawTextCallRegion } from "./raw-text-call-region.js";
import { StreamParser } from "./stream-engine.js";

/** `<run>` then code up to `<end>` (consumed) or `>>>` (left for the next segment). */
function parser() {
  return new StreamParser({
    rules: [
      {
        first: "<",
        pattern: ["<run>"],
        open: (ctx, m) =>
          new RawTextCallRegion(ctx, {
            opener: m.text,
            name: "python",
            argName: "code",
            ends: [
              { marker: "<end>", consume: true },
              { marker: ">>>", consume: false },
            ],
          }),
      },
      { first: ">", pattern: [">>>"], open: () => null },
    ],
  });
}

function run(chunks: string[]) {
  const p = parser();
  const events: ParserEvent[] = [];
  for (const c of chunks) events.push(...p.push(c));
  events.push(...p.end());
  return { events, result: collectParseResult(events) };
}

describe("RawTextCallRegion", () => {
  it("takes the trimmed text up to a consumed end marker as the single argument", () => {
    const { result } = run(["<run>\nprint(1)\n<end>after"]);
    expect(result.calls.map((c) => [c.name, c.arguments])).toEqual([["python", { code: "print(1)" }]]);
    expect(result.content).toBe("after");
  });

  it("leaves a marker that is not consumed to the content scanner", () => {
    const { result } = run(["<run>x = 1>>>tail"]);
    expect(result.calls[0]?.arguments).toEqual({ code: "x = 1" });
    expect(result.content).toBe("tail");
  });

  it("completes the call at the end of output (the stop token ended it), never as truncated", () => {
    const { result } = run(["<run>print(2)"]);
    expect(result).toMatchObject({ truncated: false, errors: [] });
    expect(result.calls[0]?.arguments).toEqual({ code: "print(2)" });
  });

  it("keeps an end marker split across chunks out of the code", () => {
    const { result } = run(["<run>a = 1<e", "n", "d>b"]);
    expect(result.calls[0]?.arguments).toEqual({ code: "a = 1" });
    expect(result.content).toBe("b");
  });

  it("makes no call of blank text", () => {
    const { result } = run(["<run>  \n<end>ok"]);
    expect(result.calls).toEqual([]);
    expect(result.content).toBe("ok");
  });

  it("announces the call with the first non-blank character, before the text is complete", () => {
    const p = parser();
    expect(p.push("<run> ").some((e) => e.type === "call-start")).toBe(false);
    expect(p.push("imp").filter((e) => e.type === "call-start")).toHaveLength(1);
    expect(p.end().filter((e) => e.type === "call-end")).toHaveLength(1);
  });
});
