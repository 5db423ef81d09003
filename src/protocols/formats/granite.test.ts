import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../parse-tool-calls.js";
import { graniteProtocol as granite } from "./granite.js";

describe("granite", () => {
  it("renders calls as <|tool_call|> and one JSON list", () => {
    const turn = granite.renderAssistantTurn({
      calls: [
        { id: "a", name: "get_weather", arguments: { city: "Rome" } },
        { id: "b", name: "get_time", arguments: {} },
      ],
    });
    expect(turn).toBe(
      '<|tool_call|>[{"name":"get_weather","arguments":{"city":"Rome"}},{"name":"get_time","arguments":{}}]',
    );
  });

  it("lists the tools as OpenAI-style functions in the catalogue", () => {
    const text = granite.renderCatalogue([
      { name: "get_time", description: "Time now", inputSchema: { type: "object" } },
    ]);
    expect(text).toContain("respond only with <|tool_call|> followed by a JSON list of tools used");
    expect(text).toContain('"name": "get_time"');
  });

  it("names a call list that is not JSON as an error, without leaking the token", () => {
    const parsed = parseToolCalls(granite, "<|tool_call|>get_weather(city=Rome)\nSorry.");
    expect(parsed.calls).toEqual([]);
    expect(parsed.errors).toHaveLength(1);
    expect(parsed.content).toBe("Sorry.");
  });
});
