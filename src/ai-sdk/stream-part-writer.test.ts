import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import type { ModelEvent } from "../core/language-model.js";
import { StreamPartWriter, unreadableCallInput } from "./stream-part-writer.js";

function write(events: ModelEvent[]): LanguageModelV3StreamPart[] {
  const parts: LanguageModelV3StreamPart[] = [];
  const writer = new StreamPartWriter((p) => parts.push(p), "t");
  for (const e of events) writer.write(e);
  writer.end();
  return parts;
}

describe("StreamPartWriter", () => {
  it("writes text and reasoning in blocks, a new one after each call, and calls as tool parts", () => {
    const parts = write([
      { type: "reasoning-delta", text: "hm" },
      { type: "text-delta", text: "A" },
      { type: "text-delta", text: "B" },
      { type: "call-start", id: "c1", name: "f" },
      { type: "call-args-delta", id: "c1", text: '{"x":' },
      { type: "call-args-delta", id: "c1", text: "1}" },
      { type: "call-end", id: "c1", name: "f", arguments: { x: 1 } },
      { type: "text-delta", text: "C" },
    ]);
    expect(parts).toEqual([
      { type: "reasoning-start", id: "t-reasoning-0" },
      { type: "reasoning-delta", id: "t-reasoning-0", delta: "hm" },
      { type: "reasoning-end", id: "t-reasoning-0" },
      { type: "text-start", id: "t-text-1" },
      { type: "text-delta", id: "t-text-1", delta: "A" },
      { type: "text-delta", id: "t-text-1", delta: "B" },
      { type: "text-end", id: "t-text-1" },
      { type: "tool-input-start", id: "c1", toolName: "f" },
      { type: "tool-input-delta", id: "c1", delta: '{"x":' },
      { type: "tool-input-delta", id: "c1", delta: "1}" },
      { type: "tool-input-end", id: "c1" },
      { type: "tool-call", toolCallId: "c1", toolName: "f", input: '{"x":1}' },
      { type: "text-start", id: "t-text-2" },
      { type: "text-delta", id: "t-text-2", delta: "C" },
      { type: "text-end", id: "t-text-2" },
    ]);
  });

  it("sends the whole input as one delta when the format streamed none, and a backend's argument string as it is", () => {
    const parts = write([{ type: "call-end", id: "c", name: "f", arguments: '{"a": 1}' }]);
    expect(parts).toEqual([
      { type: "tool-input-start", id: "c", toolName: "f" },
      { type: "tool-input-delta", id: "c", delta: '{"a": 1}' },
      { type: "tool-input-end", id: "c" },
      { type: "tool-call", toolCallId: "c", toolName: "f", input: '{"a": 1}' },
    ]);
  });

  it("turns a call no parser could read into a tool call the SDK cannot parse, named when it was started", () => {
    const parts = write([
      { type: "call-start", id: "c", name: "f" },
      { type: "call-args-delta", id: "c", text: '{"a": ' },
      {
        type: "call-error",
        id: "c",
        name: "f",
        message: "cut off",
        raw: '<tool_call>{"name": "f", "arguments": {"a": ',
      },
      { type: "call-error", message: "unreadable", raw: "<tool_call>??</tool_call>" },
    ]);
    const calls = parts.filter((p) => p.type === "tool-call");
    expect(calls.map((c) => [c.toolName, c.input])).toEqual([
      ["f", '<tool_call>{"name": "f", "arguments": {"a": '],
      ["", "<tool_call>??</tool_call>"],
    ]);
    for (const c of calls) expect(() => JSON.parse(c.input)).toThrow();
  });
});

describe("unreadableCallInput", () => {
  it("is never an object the SDK could take as arguments", () => {
    expect(unreadableCallInput("<x>{bad</x>", "m")).toBe("<x>{bad</x>");
    // Markup that is JSON (an envelope whose call is malformed) goes as a JSON string.
    expect(unreadableCallInput('{"tool_calls": [{"name": 5}]}', "m")).toBe(
      JSON.stringify('{"tool_calls": [{"name": 5}]}'),
    );
    expect(typeof JSON.parse(unreadableCallInput("{}", "m"))).toBe("string");
    // Nothing written: the parser's message (not "", which the SDK reads as no arguments at all).
    expect(unreadableCallInput("", "the call was cut off")).toBe("the call was cut off");
    expect(unreadableCallInput(undefined, "12")).toBe('"12"');
  });
});
