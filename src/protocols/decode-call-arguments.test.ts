import { describe, expect, it } from "vitest";
import { decodeCallArguments, readCallArguments } from "./decode-call-arguments.js";

describe("decodeCallArguments", () => {
  it.each([
    ["an object", { a: 1 }, { a: 1 }],
    ["a JSON string", '{"a":1}', { a: 1 }],
    ["a double-encoded string", JSON.stringify('{"a":1}'), { a: 1 }],
    ["a fenced string", '```json\n{"a":1}\n```', { a: 1 }],
    ["nothing", "  ", {}],
    ["null", null, {}],
  ])("reads %s", (_, raw, expected) => {
    expect(decodeCallArguments(raw)).toEqual({ ok: true, value: expected });
  });

  it("reads a repairable string and says it was repaired (eval --no-repair counts such calls as unreadable)", () => {
    expect(decodeCallArguments("{'a': 1,}")).toEqual({ ok: true, value: { a: 1 }, repaired: true });
    expect(decodeCallArguments(JSON.stringify("{'a': 1,}"))).toEqual({
      ok: true,
      value: { a: 1 },
      repaired: true,
    });
  });

  it.each([
    ["a list", "[1, 2]", /one JSON object/],
    ["a number", 3, /one JSON object/],
    ["text that is no JSON", "{{{", /not valid JSON/],
  ])("says what is wrong with %s", (_, raw, message) => {
    const decoded = decodeCallArguments(raw);
    expect(decoded.ok).toBe(false);
    if (!decoded.ok) expect(decoded.error).toMatch(message);
  });

  it("reads text that only a repair makes a string as an error, not forever (it overflowed the stack)", () => {
    expect(decodeCallArguments("hello")).toEqual({
      ok: false,
      error: 'the arguments must be one JSON object, e.g. {"name": "value"}, not a string',
    });
  });

  it("unwraps two encodings at most", () => {
    const twice = JSON.stringify(JSON.stringify('{"a":1}'));
    expect(decodeCallArguments(twice)).toEqual({ ok: true, value: { a: 1 } });
    expect(decodeCallArguments(JSON.stringify(twice)).ok).toBe(false);
  });

  it("says whether the text was mended (readCallArguments), naming the call in its errors", () => {
    expect(readCallArguments('{"a":1}')).toEqual({ ok: true, value: { a: 1 }, repaired: false });
    expect(readCallArguments("{'a': 1,}")).toEqual({ ok: true, value: { a: 1 }, repaired: true });
    expect(readCallArguments("[1]", 'the arguments of "f"')).toEqual({
      ok: false,
      error: 'the arguments of "f" must be one JSON object, e.g. {"name": "value"}, not an array',
    });
  });
});
