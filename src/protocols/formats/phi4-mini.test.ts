import { describe, expect, it } from "vitest";
import { parseToolCalls } from "../parse-tool-calls.js";
import { phi4MiniProtocol as phi } from "./phi4-mini.js";

describe("phi4_mini", () => {
  it("lists tools inside <|tool|>…<|/tool|> and renders each call in its own tag", () => {
    const catalogue = phi.renderCatalogue([{ name: "get_time", inputSchema: { type: "object" } }]);
    expect(catalogue).toContain(
      '<|tool|>[{"name":"get_time","description":"","parameters":{"type":"object"}}]<|/tool|>',
    );
    const turn = phi.renderAssistantTurn({
      calls: [
        { id: "a", name: "get_time", arguments: {} },
        { id: "b", name: "get_weather", arguments: { city: "Nice" } },
      ],
    });
    expect(turn).toBe(
      '<|tool_call|>{"name":"get_time","arguments":{}}<|/tool_call|><|tool_call|>{"name":"get_weather","arguments":{"city":"Nice"}}<|/tool_call|>',
    );
  });

  it("reads the functools[…] answer vLLM's parser expects, split across chunks", () => {
    const parser = phi.createParser();
    const events = [
      ...parser.push("functo"),
      ...parser.push('ols[{"name": "get_time", "argum'),
      ...parser.push('ents": {"tz": "UTC"}}]'),
      ...parser.end(),
    ];
    expect(events.some((e) => e.type === "content")).toBe(false);
    expect(events.filter((e) => e.type === "call-end")).toHaveLength(1);
    expect(
      parseToolCalls(phi, 'functools[{"name": "get_time", "arguments": {"tz": "UTC"}}]').calls[0],
    ).toMatchObject({
      name: "get_time",
      arguments: { tz: "UTC" },
    });
  });
});
