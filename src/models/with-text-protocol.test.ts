import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { LanguageModel, ModelEvent, ModelRequest } from "../core/language-model.js";
import { getProtocol } from "../protocols/protocol-registry.js";
import { withTextProtocol } from "./with-text-protocol.js";

const CALC: Tool = {
  name: "calculator",
  inputSchema: { type: "object", properties: { expression: { type: "string" } } },
};
const call = (expression: string) =>
  `<tool_call>\n{"name": "calculator", "arguments": {"expression": "${expression}"}}\n</tool_call>\n`;

/** A chat model whose text is two hermes calls, a piece at a time; records what it was asked and how far it got. */
function twoCallModel() {
  const seen = { prompts: [] as string[], piecesSent: 0, closedEarly: false };
  const pieces = [call("2 + 2"), call("1 + 1"), "done"];
  const model: LanguageModel = {
    id: "scripted",
    async *stream(request: ModelRequest): AsyncIterable<ModelEvent> {
      seen.prompts.push(JSON.stringify(request.messages));
      let finished = false;
      try {
        for (const text of pieces) {
          seen.piecesSent += 1;
          yield { type: "text-delta", text };
        }
        finished = true;
        yield { type: "finish", reason: "stop" };
      } finally {
        if (!finished) seen.closedEarly = true;
      }
    },
  };
  return { model, seen };
}

async function run(model: LanguageModel, parallelToolCalls?: boolean) {
  const events: ModelEvent[] = [];
  for await (const e of model.stream({
    messages: [{ role: "user", content: "Sums" }],
    tools: [CALC],
    toolChoice: "auto",
    signal: new AbortController().signal,
    ...(parallelToolCalls === undefined ? {} : { parallelToolCalls }),
  }))
    events.push(e);
  return events;
}

const callEnds = (events: ModelEvent[]) => events.filter((e) => e.type === "call-end");

describe("withTextProtocol and parallelToolCalls", () => {
  it("by default reads every call the inner model writes", async () => {
    const { model, seen } = twoCallModel();
    const events = await run(withTextProtocol(model, getProtocol("hermes")));
    expect(callEnds(events)).toHaveLength(2);
    expect(seen.prompts[0]).not.toContain("Call at most one function per turn.");
    expect(seen.closedEarly).toBe(false);
  });

  it("false on the request: the catalogue asks for one call and the inner stream is left after it", async () => {
    const { model, seen } = twoCallModel();
    const events = await run(withTextProtocol(model, getProtocol("hermes")), false);
    expect(callEnds(events)).toMatchObject([{ name: "calculator", arguments: { expression: "2 + 2" } }]);
    expect(events.at(-1)).toEqual({ type: "finish", reason: "tool-calls" });
    expect(seen.prompts[0]).toContain("Call at most one function per turn.");
    expect(seen.piecesSent).toBe(1); // the piece holding the first call, then the stream was closed
    expect(seen.closedEarly).toBe(true);
  });

  it("true on the request overrides a model configured for one call", async () => {
    const { model } = twoCallModel();
    const events = await run(
      withTextProtocol(model, getProtocol("hermes"), { parallelToolCalls: false }),
      true,
    );
    expect(callEnds(events)).toHaveLength(2);
  });
});

/** A chat model that writes `text` and ends at its token limit. */
function cutModel(text: string): LanguageModel {
  return {
    id: "cut",
    async *stream(): AsyncIterable<ModelEvent> {
      yield { type: "text-delta", text };
      yield { type: "finish", reason: "length" };
    },
  };
}

describe("withTextProtocol's finish reason at the token limit", () => {
  const finish = (events: ModelEvent[]) => events.find((e) => e.type === "finish");

  it("stays length when the limit cut a call off (the call is incomplete)", async () => {
    const events = await run(
      withTextProtocol(cutModel('<tool_call>\n{"name": "calculator", "argu'), getProtocol("hermes")),
    );
    expect(finish(events)).toMatchObject({ reason: "length" });
    expect(callEnds(events)).toHaveLength(0);
  });

  it("is tool-calls when complete calls came before the text the limit cut", async () => {
    const events = await run(
      withTextProtocol(cutModel(`${call("2 + 2")}Now I will explain the res`), getProtocol("hermes")),
    );
    expect(finish(events)).toMatchObject({ reason: "tool-calls" });
    expect(callEnds(events)).toHaveLength(1);
  });

  it("is length for plain text the limit cut", async () => {
    const events = await run(withTextProtocol(cutModel("A long answer that was cu"), getProtocol("hermes")));
    expect(finish(events)).toMatchObject({ reason: "length" });
  });
});
