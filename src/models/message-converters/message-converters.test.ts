import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../core/agent-message.js";
import { fromAnthropicMessages, toAnthropicMessages, toAnthropicToolChoice } from "./anthropic-messages.js";
import { fromOpenAIChatMessages, toOpenAIChatMessages, toOpenAIToolChoice } from "./openai-chat-messages.js";

const conversation: AgentMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Read a.md and b.md." },
  {
    role: "assistant",
    content: "Reading both.",
    toolCalls: [
      { id: "call_a", name: "read", arguments: { path: "a.md" } },
      { id: "call_b", name: "read", arguments: { path: "b.md", lines: [1, 2], opts: { raw: true } } },
    ],
  },
  { role: "tool", callId: "call_a", name: "read", result: { content: [{ type: "text", text: "# A" }] } },
  {
    role: "tool",
    callId: "call_b",
    name: "read",
    result: { content: [{ type: "text", text: "no such file" }], isError: true },
  },
  { role: "assistant", content: "", toolCalls: [{ id: "call_c", name: "list", arguments: {} }] },
  { role: "tool", callId: "call_c", name: "list", result: { content: [{ type: "text", text: "a.md" }] } },
  { role: "user", content: "And now?" },
  { role: "assistant", content: "Done." },
];

describe("message converters", () => {
  it("round-trips a conversation with parallel calls, errors and ids through OpenAI chat messages", () => {
    const openai = toOpenAIChatMessages(conversation);
    expect(openai[2]).toEqual({
      role: "assistant",
      content: "Reading both.",
      tool_calls: [
        { id: "call_a", type: "function", function: { name: "read", arguments: '{"path":"a.md"}' } },
        {
          id: "call_b",
          type: "function",
          function: { name: "read", arguments: '{"path":"b.md","lines":[1,2],"opts":{"raw":true}}' },
        },
      ],
    });
    expect(openai[4]).toEqual({ role: "tool", tool_call_id: "call_b", content: "Error: no such file" });
    expect(openai[5]).toMatchObject({ role: "assistant", content: "" });
    expect(toOpenAIChatMessages(conversation, { emptyCallContent: null })[5]).toMatchObject({
      content: null,
    });
    expect("content" in (toOpenAIChatMessages(conversation, { emptyCallContent: "omit" })[5] ?? {})).toBe(
      false,
    );
    expect(fromOpenAIChatMessages(openai)).toEqual(conversation);
  });

  it("round-trips through Anthropic messages: top-level system, results grouped in one user turn with the next text", () => {
    const anthropic = toAnthropicMessages(conversation);
    expect(anthropic.system).toBe("Be brief.");
    expect(anthropic.messages.map((m) => m.role)).toEqual([
      "user",
      "assistant",
      "user",
      "assistant",
      "user",
      "assistant",
    ]);
    expect(anthropic.messages[2]).toEqual({
      role: "user",
      content: [
        { type: "tool_result", tool_use_id: "call_a", content: [{ type: "text", text: "# A" }] },
        {
          type: "tool_result",
          tool_use_id: "call_b",
          content: [{ type: "text", text: "no such file" }],
          is_error: true,
        },
      ],
    });
    expect(anthropic.messages[3]).toEqual({
      role: "assistant",
      content: [{ type: "tool_use", id: "call_c", name: "list", input: {} }],
    });
    expect(anthropic.messages[4]?.content).toEqual([
      { type: "tool_result", tool_use_id: "call_c", content: [{ type: "text", text: "a.md" }] },
      { type: "text", text: "And now?" },
    ]);
    expect(fromAnthropicMessages(anthropic)).toEqual(conversation);
  });

  it("maps toolChoice the same way on both APIs", () => {
    expect(
      ["auto", "required", "none", { name: "read" }].map((c) => toOpenAIToolChoice(c as "auto")),
    ).toEqual(["auto", "required", "none", { type: "function", function: { name: "read" } }]);
    expect(
      ["auto", "required", "none", { name: "read" }].map((c) => toAnthropicToolChoice(c as "auto")),
    ).toEqual([{ type: "auto" }, { type: "any" }, { type: "none" }, { type: "tool", name: "read" }]);
  });
});
