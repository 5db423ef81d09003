import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { collectParseResult, parseToolCalls } from "../parse-tool-calls.js";
import { gptOssHarmonyProtocol as harmony } from "./gpt-oss-harmony.js";

const weather: Tool = {
  name: "get_current_weather",
  description: "Gets the current weather in the provided location.",
  inputSchema: {
    type: "object",
    properties: {
      location: { type: "string", description: "The city and state, e.g. San Francisco, CA" },
      format: { type: "string", enum: ["celsius", "fahrenheit"], default: "celsius" },
    },
    required: ["location"],
  },
};
const location: Tool = {
  name: "get_location",
  description: "Gets the location of the user.",
  inputSchema: { type: "object" },
};

describe("gpt_oss_harmony", () => {
  it("describes tools in the TypeScript-like namespace the harmony guide shows", () => {
    const text = harmony.renderCatalogue([location, weather]);
    expect(text).toContain("Calls to these tools must go to the commentary channel: 'functions'.");
    expect(text).toContain(
      [
        "namespace functions {",
        "",
        "// Gets the location of the user.",
        "type get_location = () => any;",
        "",
        "// Gets the current weather in the provided location.",
        "type get_current_weather = (_: {",
        "// The city and state, e.g. San Francisco, CA",
        "location: string,",
        'format?: "celsius" | "fahrenheit", // default: celsius',
        "}) => any;",
        "",
        "} // namespace functions",
      ].join("\n"),
    );
  });

  it("renders arrays, nested objects and unions as types", () => {
    const tool: Tool = {
      name: "plan",
      inputSchema: {
        type: "object",
        properties: {
          stops: { type: "array", items: { type: "string" } },
          when: { anyOf: [{ type: "string" }, { type: "null" }] },
          opts: { type: "object", properties: { fast: { type: "boolean" } }, required: ["fast"] },
        },
      },
    };
    const text = harmony.renderCatalogue([tool]);
    expect(text).toContain("stops?: string[],");
    expect(text).toContain("when?: string | null,");
    expect(text).toContain("opts?: {\nfast: boolean,\n},");
  });

  it("writes a call as a commentary message to functions.NAME and results as a tool message", () => {
    const turn = harmony.renderAssistantTurn({
      content: "Checking.",
      calls: [{ id: "c1", name: "get_current_weather", arguments: { location: "Tokyo" } }],
    });
    expect(turn).toBe(
      '<|channel|>commentary<|message|>Checking.<|end|><|start|>assistant<|channel|>commentary to=functions.get_current_weather <|constrain|>json<|message|>{"location":"Tokyo"}<|call|>',
    );
    const parsed = parseToolCalls(harmony, turn);
    expect(parsed.content).toBe("Checking.");
    expect(parsed.calls.map((c) => c.arguments)).toEqual([{ location: "Tokyo" }]);
    const results = harmony.renderToolResults([
      {
        callId: "c1",
        name: "get_current_weather",
        result: { content: [{ type: "text", text: '{"sunny": true}' }] },
      },
    ]);
    expect(results).toBe(
      '<|start|>functions.get_current_weather to=assistant<|channel|>commentary<|message|>{"sunny": true}<|end|>',
    );
  });

  it("announces the call by name before its arguments have arrived", () => {
    const parser = harmony.createParser({ prefix: "<|start|>assistant" });
    const first = parser.push(
      '<|channel|>commentary to=functions.get_current_weather <|constrain|>json<|message|>{"loc',
    );
    expect(first.filter((e) => e.type === "call-start").map((e) => (e as { name: string }).name)).toEqual([
      "get_current_weather",
    ]);
    expect(first.some((e) => e.type === "call-end")).toBe(false);
    const rest = [...parser.push('ation": "Oslo"}<|call|>'), ...parser.end()];
    expect(collectParseResult([...first, ...rest]).calls.map((c) => c.arguments)).toEqual([
      { location: "Oslo" },
    ]);
  });
});
