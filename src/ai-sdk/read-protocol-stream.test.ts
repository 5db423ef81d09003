import type { LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { getProtocol } from "../protocols/protocol-registry.js";
import { readProtocolStream } from "./read-protocol-stream.js";

type Part = LanguageModelV3StreamPart;
const hermes = getProtocol("hermes");
const FINISH: Part = {
  type: "finish",
  finishReason: { unified: "stop", raw: "eos" },
  usage: {
    inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 9, text: 9, reasoning: 0 },
  },
};
const tools = [{ name: "get_weather", inputSchema: { type: "object" as const } }];
const options = { protocol: hermes, tools, callable: true, stops: [], singleCall: false, warnings: [] };

/** A model's stream that tells how far it was read and whether it was cancelled. */
function source(parts: Part[]) {
  const state = { cancelled: false, sent: 0 };
  const stream = new ReadableStream<Part>({
    pull(controller) {
      const next = parts[state.sent++];
      if (next) controller.enqueue(next);
      else controller.close();
    },
    cancel() {
      state.cancelled = true;
    },
  });
  return { stream, state };
}

const text = (delta: string): Part => ({ type: "text-delta", id: "m", delta });

async function drain(stream: ReadableStream<Part>): Promise<Part[]> {
  const out: Part[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push(value);
  }
}

describe("readProtocolStream", () => {
  it("passes what is not text, adds warnings to stream-start, and finishes with tool-calls after a call", async () => {
    const { stream } = source([
      { type: "stream-start", warnings: [] },
      { type: "response-metadata", id: "r1" },
      { type: "text-start", id: "m" },
      text('<tool_call>{"name": "f", "arguments": {}}</tool_call>'),
      { type: "text-end", id: "m" },
      { type: "raw", rawValue: 1 },
      FINISH,
    ]);
    const parts = await drain(
      readProtocolStream(stream, { ...options, warnings: [{ type: "other", message: "w" }] }),
    );
    expect(parts[0]).toEqual({ type: "stream-start", warnings: [{ type: "other", message: "w" }] });
    expect(parts.map((p) => p.type)).toEqual([
      "stream-start",
      "response-metadata",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-end",
      "tool-call",
      "raw",
      "finish",
    ]);
    expect(parts.at(-1)).toEqual({ ...FINISH, finishReason: { unified: "tool-calls", raw: "eos" } });
  });

  it("hands over what has arrived at once: nothing waits for input that has not come", async () => {
    // The model's second piece comes only when the test lets it: reading the first must not need it.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const parts = [text("Hel"), text("lo"), FINISH];
    let sent = 0;
    const stream = new ReadableStream<Part>({
      async pull(controller) {
        if (sent === 1) await held;
        const next = parts[sent++];
        if (next) controller.enqueue(next);
        else controller.close();
      },
    });
    const reader = readProtocolStream(stream, options).getReader();
    expect((await reader.read()).value).toEqual({ type: "text-start", id: expect.any(String) });
    expect((await reader.read()).value).toMatchObject({ type: "text-delta", delta: "Hel" });
    expect(sent).toBe(1); // the second piece is still held back
    release();
    const rest = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest.push(value);
    }
    expect(rest).toMatchObject([
      { type: "text-delta", delta: "lo" },
      { type: "text-end" },
      { type: "finish" },
    ]);
  });

  it("joins the deltas of one block that arrived together", async () => {
    const { stream } = source(["a", "b", "c"].map(text).concat(FINISH));
    const parts = await drain(readProtocolStream(stream, options));
    expect(
      parts
        .filter((p) => p.type === "text-delta")
        .map((p) => (p as { delta: string }).delta)
        .join(""),
    ).toBe("abc");
    expect(parts.filter((p) => p.type === "text-delta").length).toBeLessThan(3);
  });

  it("cancels the model once a stop string ends the text, and finishes at once", async () => {
    const { stream, state } = source([
      text("Answer: 4. ST"),
      text("OP and then more"),
      text(" and more"),
      FINISH,
    ]);
    const parts = await drain(readProtocolStream(stream, { ...options, stops: ["STOP"] }));
    expect(
      parts
        .filter((p) => p.type === "text-delta")
        .map((p) => (p as { delta: string }).delta)
        .join(""),
    ).toBe("Answer: 4. ");
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "stop" } });
    expect(state.cancelled).toBe(true);
    expect(state.sent).toBeLessThan(4);
  });

  it("with one call allowed, ends the turn after it and cancels the model", async () => {
    const call = (city: string) =>
      text(`<tool_call>{"name": "f", "arguments": {"city": "${city}"}}</tool_call>`);
    const { stream, state } = source([call("Lima"), call("Oslo"), call("Rome"), FINISH]);
    const parts = await drain(readProtocolStream(stream, { ...options, singleCall: true }));
    expect(parts.filter((p) => p.type === "tool-call").map((p) => (p as { input: string }).input)).toEqual([
      '{"city":"Lima"}',
    ]);
    expect(parts.at(-1)).toMatchObject({ type: "finish", finishReason: { unified: "tool-calls" } });
    expect(state.cancelled).toBe(true);
  });

  it("ends what is open when the model's stream ends without a finish", async () => {
    const { stream } = source([text('Hi <tool_call>{"name": "f", "arguments": {"a": ')]);
    const parts = await drain(readProtocolStream(stream, options));
    expect(parts.map((p) => p.type)).toEqual([
      "text-start",
      "text-delta",
      "text-end",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-end",
      "tool-call",
    ]);
  });
});
