import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../parse-tool-calls.js";
import type { ToolCall } from "../types.js";
import { deepseekR1Protocol as r1, deepseekV31Protocol as v31 } from "./deepseek.js";

const calls: ToolCall[] = [
  { id: "a", name: "get_weather", arguments: { city: "Paris" } },
  { id: "b", name: "get_time", arguments: {} },
];
const result = (text: string) => ({ content: [{ type: "text" as const, text }] });

describe("deepseek_r1", () => {
  it("renders calls exactly as the R1 chat template does", () => {
    expect(r1.renderAssistantTurn({ calls })).toBe(
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city":"Paris"}\n```<｜tool▁call▁end｜>\n' +
        "<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_time\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    );
  });

  it("wraps results in tool outputs, one output per result", () => {
    expect(
      r1.renderToolResults([
        { callId: "a", name: "get_weather", result: result("sunny") },
        { callId: "b", name: "get_time", result: result("12:00") },
      ]),
    ).toBe(
      "<｜tool▁outputs▁begin｜><｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜>\n<｜tool▁output▁begin｜>12:00<｜tool▁output▁end｜><｜tool▁outputs▁end｜>",
    );
  });

  it("keeps the newline between two calls out of the content", () => {
    const text = `Both:${r1.renderAssistantTurn({ calls })}\nDone.`;
    const parsed = parseToolCalls(r1, text);
    expect(parsed.content).toBe("Both:\nDone.");
    expect(parsed.calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
  });

  it("reads the output as reasoning first when the prompt ended with <think>", () => {
    const parsed = parseToolCalls(r1, "weighing options</think>Answer.", {
      prefix: "<｜Assistant｜><think>\n",
    });
    expect(parsed).toMatchObject({ reasoning: "weighing options", content: "Answer.", calls: [] });
  });
});

describe("deepseek_v3_1", () => {
  it("renders calls exactly as the V3.1 chat template does", () => {
    expect(v31.renderAssistantTurn({ content: "Sure.", calls })).toBe(
      'Sure.<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>{"city":"Paris"}<｜tool▁call▁end｜>' +
        "<｜tool▁call▁begin｜>get_time<｜tool▁sep｜>{}<｜tool▁call▁end｜><｜tool▁calls▁end｜>",
    );
    expect(v31.renderToolResults([{ callId: "a", name: "get_weather", result: result("sunny") }])).toBe(
      "<｜tool▁output▁begin｜>sunny<｜tool▁output▁end｜>",
    );
  });

  it("streams the name first and the arguments as deltas", () => {
    const parser = v31.createParser();
    const events = [
      ...parser.push("<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>get_weather<｜tool▁sep｜>"),
      ...parser.push('{"city": "Pa'),
      ...parser.push('ris"}<｜tool▁call▁end｜><｜tool▁calls▁end｜>'),
      ...parser.end(),
    ];
    expect(events[0]).toMatchObject({ type: "call-start", name: "get_weather" });
    expect(events[events.length - 1]).toMatchObject({
      type: "call-end",
      call: { arguments: { city: "Paris" } },
    });
    const deltas = events
      .filter((e) => e.type === "call-args-delta")
      .map((e) => (e as { text: string }).text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join("")).toBe('{"city": "Paris"}');
  });

  it("reports a body that is not JSON as an error naming the expected shape", () => {
    const parsed = parseToolCalls(v31, "<｜tool▁call▁begin｜>run<｜tool▁sep｜>ls -la<｜tool▁call▁end｜>");
    expect(parsed.calls).toEqual([]);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.errors[0]!.message).toContain("<｜tool▁sep｜>");
  });
});
