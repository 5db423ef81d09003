import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { ModelEvent } from "../core/language-model.js";
import { getProtocol } from "../protocols/protocol-registry.js";
import { StopAtVisibleText, stopAtVisibleText } from "./stop-at-visible-text.js";
import { TextCallReader } from "./text-call-reader.js";

const LOOKUP: Tool = {
  name: "lookup",
  inputSchema: { type: "object", properties: { q: { type: "string" } } },
};

/** What a text backend streams: the raw text, chunk by chunk, through the hermes parser, then a finish with usage. */
function hermesTurn(chunks: readonly string[]): ModelEvent[] {
  const reader = new TextCallReader({ protocol: getProtocol("hermes"), tools: [LOOKUP], toolChoice: "auto" });
  const events = chunks.flatMap((chunk) => reader.push(chunk));
  events.push(...reader.end(), { type: "finish", reason: "stop", usage: { outputTokens: 42 } });
  return events;
}

function run(events: readonly ModelEvent[], stops: readonly string[]) {
  const stop = new StopAtVisibleText(stops);
  const out = events.flatMap((e) => stop.read(e));
  const text = out.map((e) => (e.type === "text-delta" ? e.text : "")).join("");
  const calls = out.filter((e) => e.type === "call-end");
  return { out, text, calls, finish: out.at(-1), stopped: stop.stopped };
}

describe("StopAtVisibleText", () => {
  it("ends the text before the first stop string, even one split across chunks, and finishes with stop naming it", () => {
    const { text, finish, stopped } = run(hermesTurn(["Hello wo", "rld. EN", "D more text"]), ["END", "xyz"]);
    expect(text).toBe("Hello world. ");
    expect(stopped).toBe(true);
    expect(finish).toEqual({
      type: "finish",
      reason: "stop",
      usage: { outputTokens: 42 },
      stopSequence: "END",
    });
  });

  it("never cuts a call: a stop string inside the call's markup or arguments leaves the call whole", () => {
    // "}" and "<" occur in the call's markup and in its argument; only the text after the call reaches "}".
    const turn = hermesTurn([
      "Let me look. <tool",
      '_call>\n{"name": "lookup", "arguments": {"q": "a}b<c"}}\n</tool_call>',
      "Then { and } here",
    ]);
    const { text, calls, finish } = run(turn, ["}", "<tool"]);
    expect(calls).toEqual([expect.objectContaining({ name: "lookup", arguments: { q: "a}b<c" } })]);
    expect(text.replace(/\s+/g, " ").trim()).toBe("Let me look. Then { and");
    expect(finish).toMatchObject({ type: "finish", reason: "tool-calls" });
  });

  it("passes everything through unchanged when no stop string occurs", () => {
    const turn = hermesTurn(["plain ", "answer"]);
    const { out } = run(turn, ["STOP"]);
    expect(out.map((e) => (e.type === "text-delta" ? e.text : "")).join("")).toBe("plain answer");
    expect(out.at(-1)).toEqual(turn.at(-1));
  });
});

describe("stopAtVisibleText", () => {
  async function* stream(events: readonly ModelEvent[], log: string[]) {
    try {
      for (const e of events) yield e;
      log.push("ran to the end");
    } finally {
      log.push("closed");
    }
  }

  it("with halt: asks the backend to stop once and keeps its finish (and usage)", async () => {
    const log: string[] = [];
    const out: ModelEvent[] = [];
    const events = hermesTurn(["one STOP two", " three"]);
    for await (const e of stopAtVisibleText(stream(events, log), ["STOP"], () => log.push("halt")))
      out.push(e);
    expect(log).toEqual(["halt", "ran to the end", "closed"]);
    expect(out.at(-1)).toEqual({
      type: "finish",
      reason: "stop",
      usage: { outputTokens: 42 },
      stopSequence: "STOP",
    });
  });

  it("without halt: closes the backend's stream at the stop string and finishes there", async () => {
    const log: string[] = [];
    const out: ModelEvent[] = [];
    for await (const e of stopAtVisibleText(stream(hermesTurn(["one STOP two"]), log), ["STOP"])) out.push(e);
    expect(log).toEqual(["closed"]);
    expect(out).toEqual([
      { type: "text-delta", text: "one " },
      { type: "finish", reason: "stop", stopSequence: "STOP" },
    ]);
  });
});
