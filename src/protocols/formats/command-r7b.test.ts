import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../parse-tool-calls.js";
import { commandR7bProtocol as cmd } from "./command-r7b.js";

describe("command_r7b", () => {
  it("renders a plan into the thinking block and the calls as a numbered action list", () => {
    const turn = cmd.renderAssistantTurn({
      content: "Look up both cities.",
      calls: [
        { id: "x", name: "get_weather", arguments: { city: "Rome" } },
        { id: "y", name: "get_weather", arguments: { city: "Oslo" } },
      ],
    });
    expect(turn).toBe(
      "<|START_THINKING|>Look up both cities.<|END_THINKING|><|START_ACTION|>[\n" +
        '    {"tool_call_id":"0","tool_name":"get_weather","parameters":{"city":"Rome"}},\n' +
        '    {"tool_call_id":"1","tool_name":"get_weather","parameters":{"city":"Oslo"}}\n' +
        "]<|END_ACTION|>",
    );
    const parsed = parseToolCalls(cmd, turn);
    expect(parsed.reasoning).toBe("Look up both cities.");
    expect(parsed.calls.map((c) => c.arguments)).toEqual([{ city: "Rome" }, { city: "Oslo" }]);
  });

  it("renders results as the tool-result list the template shows, linked by position", () => {
    const text = cmd.renderToolResults([
      { callId: "x", name: "get_weather", result: { content: [{ type: "text", text: '{"temp": 21}' }] } },
      {
        callId: "y",
        name: "get_weather",
        result: { content: [{ type: "text", text: "boom" }], isError: true },
      },
    ]);
    expect(text.startsWith("<|START_TOOL_RESULT|>")).toBe(true);
    expect(text.endsWith("<|END_TOOL_RESULT|>")).toBe(true);
    const body = JSON.parse(text.slice("<|START_TOOL_RESULT|>".length, -"<|END_TOOL_RESULT|>".length));
    expect(body).toEqual([
      { tool_call_id: "0", results: { "0": { temp: 21 } }, is_error: null },
      { tool_call_id: "1", results: { "0": "Error: boom" }, is_error: true },
    ]);
  });

  it("gives a plain answer back as content", () => {
    expect(parseToolCalls(cmd, cmd.renderAssistantTurn({ content: "Hi!", calls: [] })).content).toBe("Hi!");
  });
});
