import type { Tool } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { getProtocol } from "../protocols/protocol-registry.js";
import { toProtocolPrompt } from "./to-protocol-prompt.js";

const hermes = getProtocol("hermes");
const tools: Tool[] = [
  {
    name: "get_weather",
    description: "Weather",
    inputSchema: { type: "object", properties: { city: { type: "string" } } },
  },
];
const call = {
  type: "tool-call" as const,
  toolCallId: "c1",
  toolName: "get_weather",
  input: { city: "Lima" },
};
const result = (id: string, value: string) => ({
  type: "tool-result" as const,
  toolCallId: id,
  toolName: "get_weather",
  output: { type: "text" as const, value },
});

describe("toProtocolPrompt", () => {
  it("adds the catalogue to the first system message, or as one at the start", () => {
    const withSystem = toProtocolPrompt({
      prompt: [
        { role: "system", content: "Be brief." },
        { role: "user", content: [{ type: "text", text: "Hi" }] },
      ],
      tools,
      toolChoice: "auto",
      protocol: hermes,
    });
    expect(withSystem[0]).toEqual({
      role: "system",
      content: `Be brief.\n\n${hermes.renderCatalogue(tools)}`,
    });
    const without = toProtocolPrompt({
      prompt: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
      tools,
      toolChoice: "auto",
      protocol: hermes,
    });
    expect(without[0]).toEqual({ role: "system", content: hermes.renderCatalogue(tools) });
  });

  it("writes calls and results in the format, results in one user message, and keeps a user's files", () => {
    const file = { type: "file" as const, data: "AAAA", mediaType: "image/png" };
    const out = toProtocolPrompt({
      prompt: [
        { role: "user", content: [{ type: "text", text: "Weather?" }, file] },
        {
          role: "assistant",
          content: [
            { type: "reasoning", text: "check" },
            { type: "text", text: "Sure.\n\n" },
            call,
            { ...call, toolCallId: "c2", input: { city: "Oslo" } },
          ],
        },
        {
          role: "tool",
          content: [result("c1", "19"), { type: "tool-approval-response", approvalId: "a", approved: true }],
        },
        { role: "tool", content: [result("c2", "4")] },
        { role: "user", content: [{ type: "text", text: "Thanks" }] },
      ],
      tools,
      toolChoice: "none",
      protocol: hermes,
    });
    // toolChoice none: no catalogue, yet the history is written in the format.
    expect(out.map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(out[0]).toEqual({ role: "user", content: [{ type: "text", text: "Weather?" }, file] });
    expect(out[1]).toEqual({
      role: "assistant",
      content: [
        { type: "reasoning", text: "check" },
        {
          type: "text",
          text: hermes.renderAssistantTurn({
            content: "Sure.",
            calls: [
              { id: "c1", name: "get_weather", arguments: { city: "Lima" } },
              { id: "c2", name: "get_weather", arguments: { city: "Oslo" } },
            ],
          }),
        },
      ],
    });
    const results = hermes.renderToolResults([
      { callId: "c1", name: "get_weather", result: { content: [{ type: "text", text: "19" }] } },
      { callId: "c2", name: "get_weather", result: { content: [{ type: "text", text: "4" }] } },
    ]);
    expect(out[2]).toEqual({ role: "user", content: [{ type: "text", text: `${results}\n\nThanks` }] });
  });

  it("writes a call the parser could not read back as the text the model wrote", () => {
    const raw = '<tool_call>{"name": "get_weather", "arguments": {"city": Li';
    const out = toProtocolPrompt({
      prompt: [{ role: "assistant", content: [{ ...call, input: raw }] }],
      tools,
      toolChoice: "none",
      protocol: hermes,
    });
    expect(out).toEqual([{ role: "assistant", content: [{ type: "text", text: raw }] }]);
  });

  it("offers only the named tool, with the instruction to call it", () => {
    const two: Tool[] = [...tools, { name: "get_time", inputSchema: { type: "object" } }];
    const [system] = toProtocolPrompt({
      prompt: [],
      tools: two,
      toolChoice: { name: "get_time" },
      protocol: hermes,
    });
    expect(system?.content).toContain("get_time");
    expect(system?.content).not.toContain("get_weather");
    expect(system?.content).toContain('You must call the tool "get_time"');
  });
});
