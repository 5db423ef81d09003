import type { CallToolResult } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { ToolCall, ToolResultItem } from "../types.js";
import {
  fromAnthropicToolResult,
  fromAnthropicToolUse,
  toAnthropicToolResults,
  toAnthropicToolUse,
} from "./anthropic-converters.js";
import {
  fromToolCallsEnvelope,
  fromToolResultsEnvelope,
  toToolCallsEnvelope,
  toToolResultsEnvelope,
} from "./envelope-converters.js";
import { mcpParamsToToolCall, toolCallToMcpParams } from "./mcp-call-converters.js";
import {
  fromOpenAIToolCalls,
  fromOpenAIToolMessage,
  toOpenAIToolCalls,
  toOpenAIToolMessages,
} from "./openai-converters.js";

const calls: ToolCall[] = [
  {
    id: "call_1",
    name: "get_weather",
    arguments: { city: "Zürich", days: 2, opts: { metric: true, tags: ["a"] } },
  },
  { id: "call_2", name: "fs.read", arguments: {} },
];
const ok: CallToolResult = { content: [{ type: "text", text: "21°C" }] };
const structured: CallToolResult = {
  content: [{ type: "text", text: '{"t":21}' }],
  structuredContent: { t: 21 },
};
const failed: CallToolResult = { content: [{ type: "text", text: "city not found" }], isError: true };
const results: ToolResultItem[] = [
  { callId: "call_1", name: "get_weather", result: ok },
  { callId: "call_2", name: "fs.read", result: failed },
];

describe("converters round-trip", () => {
  it("MCP tools/call params", () => {
    for (const c of calls) expect(mcpParamsToToolCall(toolCallToMcpParams(c), c.id)).toEqual(c);
  });

  it("tool_calls / tool_results envelope", () => {
    expect(fromToolCallsEnvelope(toToolCallsEnvelope(calls))).toEqual(calls);
    expect(toToolResultsEnvelope(results)).toEqual({
      tool_results: [
        { id: "call_1", name: "get_weather", content: "21°C" },
        { id: "call_2", name: "fs.read", error: "city not found" },
      ],
    });
    expect(fromToolResultsEnvelope(toToolResultsEnvelope(results))).toEqual(results);
    const back = fromToolResultsEnvelope(
      toToolResultsEnvelope([{ callId: "c", name: "n", result: structured }]),
    );
    expect(back[0]!.result.structuredContent).toEqual({ t: 21 });
  });

  it("OpenAI tool_calls (arguments as a JSON string) and role:tool messages", () => {
    const openai = toOpenAIToolCalls(calls);
    expect(typeof openai[0]!.function.arguments).toBe("string");
    expect(fromOpenAIToolCalls(openai)).toEqual(calls);
    const msgs = toOpenAIToolMessages(results);
    expect(msgs[1]).toEqual({ role: "tool", tool_call_id: "call_2", content: "Error: city not found" });
    expect(msgs.map((m, i) => fromOpenAIToolMessage(m, results[i]!.name))).toEqual(results);
  });

  it("OpenAI arguments that are not valid JSON are repaired", () => {
    const tc = [{ id: "x", type: "function" as const, function: { name: "f", arguments: "{'a': 1,}" } }];
    expect(fromOpenAIToolCalls(tc)[0]!.arguments).toEqual({ a: 1 });
  });

  it("Anthropic tool_use and tool_result blocks", () => {
    expect(fromAnthropicToolUse([{ type: "text" }, ...toAnthropicToolUse(calls)])).toEqual(calls);
    const blocks = toAnthropicToolResults(results);
    expect(blocks[1]).toMatchObject({ tool_use_id: "call_2", is_error: true });
    expect(blocks.map((b, i) => fromAnthropicToolResult(b, results[i]!.name))).toEqual(results);
  });
});
