import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../parse-tool-calls.js";
import { kimiK2Protocol } from "./kimi-k2.js";

const CALL = (id: string, args: string) =>
  `<|tool_call_begin|>${id}<|tool_call_argument_begin|>${args}<|tool_call_end|>`;

describe("kimi_k2", () => {
  it("keeps the call id from the text, so results can answer it as the template does", () => {
    const text = `<|tool_calls_section_begin|>${CALL("functions.get_weather:3", '{"city":"Oslo"}')}<|tool_calls_section_end|>`;
    const r = parseToolCalls(kimiK2Protocol, text);
    expect(r.calls).toEqual([
      { id: "functions.get_weather:3", name: "get_weather", arguments: { city: "Oslo" } },
    ]);
    const results = kimiK2Protocol.renderToolResults([
      { callId: r.calls[0]!.id, name: "get_weather", result: { content: [{ type: "text", text: "12°C" }] } },
    ]);
    expect(results).toBe("## Return of functions.get_weather:3\n12°C");
  });

  it("streams the argument text as it arrives, and the deltas add up to the arguments", () => {
    const parser = kimiK2Protocol.createParser();
    const text = `Sure.<|tool_calls_section_begin|>${CALL("functions.f:0", '{"a": [1, 2], "b": "x"}')}<|tool_calls_section_end|>`;
    const events = [...text].flatMap((ch) => parser.push(ch)).concat(parser.end());
    const deltas = events.flatMap((e) => (e.type === "call-args-delta" ? [e.text] : []));
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe('{"a": [1, 2], "b": "x"}');
    const kinds = events
      .map((e) => e.type)
      .filter((t, k, all) => t !== "call-args-delta" && t !== all[k - 1]);
    expect(kinds).toEqual(["content", "call-start", "call-end"]);
  });

  it("renders calls with the template's functions.<name>:<n> ids, whatever ids they had", () => {
    const text = kimiK2Protocol.renderAssistantTurn({
      content: "Checking.",
      calls: [
        { id: "call_1", name: "a.b", arguments: { x: 1 } },
        { id: "call_2", name: "c", arguments: {} },
      ],
    });
    expect(text).toBe(
      `Checking.<|tool_calls_section_begin|>${CALL("functions.a.b:0", '{"x":1}')}${CALL("functions.c:1", "{}")}<|tool_calls_section_end|>`,
    );
    expect(parseToolCalls(kimiK2Protocol, text).calls.map((c) => c.name)).toEqual(["a.b", "c"]);
  });

  it("a complete JSON argument object without the end tokens is still the call", () => {
    const r = parseToolCalls(
      kimiK2Protocol,
      `<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{"a": 1}`,
    );
    expect(r.calls.map((c) => c.arguments)).toEqual([{ a: 1 }]);
    expect(r.truncated).toBe(false);
  });
});
