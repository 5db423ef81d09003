import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../parse-tool-calls.js";
import type { ToolCall } from "../types.js";
import { gemma3ToolCodeProtocol as code, gemma3JsonProtocol as json } from "./gemma3.js";

const calls: ToolCall[] = [
  { id: "a", name: "get_weather", arguments: { city: "Paris", days: 2, detailed: true } },
  { id: "b", name: "get_time", arguments: {} },
];
const weather = {
  name: "get_weather",
  description: "Current weather",
  inputSchema: {
    type: "object" as const,
    properties: { city: { type: "string", description: "City name" }, days: { type: "integer" } },
  },
};

describe("gemma3_tool_code", () => {
  it("renders calls one per line in a tool_code fence and results in a tool_output fence", () => {
    expect(code.renderAssistantTurn({ content: "Let me check.", calls })).toBe(
      'Let me check.\n\n```tool_code\nget_weather(city="Paris", days=2, detailed=True)\nget_time()\n```',
    );
    expect(
      code.renderToolResults([
        { callId: "a", name: "get_weather", result: { content: [{ type: "text", text: "sunny" }] } },
      ]),
    ).toBe("```tool_output\nsunny\n```");
  });

  it("describes tools as Python signatures with their argument docs", () => {
    const text = code.renderCatalogue([weather]);
    expect(text).toContain("def get_weather(city: str, days: int):");
    expect(text).toContain("city: City name");
  });

  it("reads Python booleans and None in calls", () => {
    const r = parseToolCalls(code, "```tool_code\nf(a=True, b=None, c=False)\n```");
    expect(r.calls[0]?.arguments).toEqual({ a: true, b: null, c: false });
  });
});

describe("gemma3_json", () => {
  it("renders one JSON object per call and reads them back", () => {
    const text = json.renderAssistantTurn({ calls });
    expect(text).toBe(
      '{"name":"get_weather","parameters":{"city":"Paris","days":2,"detailed":true}}\n{"name":"get_time","parameters":{}}',
    );
    expect(parseToolCalls(json, text).calls.map((c) => c.name)).toEqual(["get_weather", "get_time"]);
  });

  it("lists the tools as JSON in the prompt", () => {
    expect(json.renderCatalogue([weather])).toContain('"name": "get_weather"');
  });
});
