import { describe, expect, it } from "vitest";
import { toAgentMessages } from "./to-agent-messages.js";

describe("toAgentMessages", () => {
  it("reads a conversation with calls, reasoning and results", () => {
    expect(
      toAgentMessages([
        { role: "system", content: "Be brief." },
        {
          role: "user",
          content: [
            { type: "text", text: "Weather " },
            { type: "text", text: "in Lima?" },
          ],
        },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "look it up" },
            { type: "text", text: "Checking." },
            { type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: { city: "Lima" } },
            { type: "tool-call", toolCallId: "c2", toolName: "get_weather", input: "{broken" },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: "c1",
              toolName: "get_weather",
              output: { type: "json", value: { t: 19 } },
            },
            {
              type: "tool-result",
              toolCallId: "c2",
              toolName: "get_weather",
              output: { type: "error-text", value: "bad" },
            },
          ],
        },
      ]),
    ).toEqual([
      { role: "system", content: "Be brief." },
      { role: "user", content: "Weather in Lima?" },
      {
        role: "assistant",
        content: "Checking.{broken",
        reasoning: "look it up",
        toolCalls: [{ id: "c1", name: "get_weather", arguments: { city: "Lima" } }],
      },
      {
        role: "tool",
        callId: "c1",
        name: "get_weather",
        result: { content: [{ type: "text", text: '{"t":19}' }] },
      },
      {
        role: "tool",
        callId: "c2",
        name: "get_weather",
        result: { content: [{ type: "text", text: "bad" }], isError: true },
      },
    ]);
  });

  it("refuses a file, saying what to do, instead of dropping it", () => {
    expect(() =>
      toAgentMessages([
        { role: "user", content: [{ type: "file", data: "AAAA", mediaType: "application/pdf" }] },
      ]),
    ).toThrow(/reads text only.*application\/pdf.*Send it as text/);
  });
});
