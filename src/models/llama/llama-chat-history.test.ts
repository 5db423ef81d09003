import type { ChatHistoryItem } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../core/agent-message.js";
import { fromLlamaChatHistory, toLlamaChatHistory } from "./llama-chat-history.js";

const text = (t: string) => ({ content: [{ type: "text" as const, text: t }] });

// Canonical conversation: prose, a call and its result, more prose after the result, two parallel calls, an answer.
const messages: AgentMessage[] = [
  { role: "system", content: "Be brief." },
  { role: "user", content: "Roll and add." },
  {
    role: "assistant",
    content: "Rolling.",
    toolCalls: [{ id: "call_1", name: "roll_dice", arguments: { notation: "2d6" } }],
  },
  { role: "tool", callId: "call_1", name: "roll_dice", result: text("7") },
  {
    role: "assistant",
    content: "Now both.",
    toolCalls: [
      { id: "call_2", name: "calculator", arguments: { expression: "7+1" } },
      { id: "call_3", name: "get_time", arguments: {} },
    ],
  },
  { role: "tool", callId: "call_2", name: "calculator", result: text("8") },
  { role: "tool", callId: "call_3", name: "get_time", result: text("noon") },
  { role: "assistant", content: "It is 8 at noon." },
  { role: "user", content: "Thanks" },
];

describe("AgentMessage[] <-> node-llama-cpp chat history", () => {
  it("puts calls with their real results into one model item and opens a new model item for generation", () => {
    const history = toLlamaChatHistory(messages);
    expect(history.map((h) => h.type)).toEqual(["system", "user", "model", "user", "model"]);
    const turn = history[2] as Extract<ChatHistoryItem, { type: "model" }>;
    expect(turn.response).toEqual([
      "Rolling.",
      {
        type: "functionCall",
        name: "roll_dice",
        params: { notation: "2d6" },
        result: "7",
        startsNewChunk: true,
      },
      "Now both.",
      {
        type: "functionCall",
        name: "calculator",
        params: { expression: "7+1" },
        result: "8",
        startsNewChunk: true,
      },
      { type: "functionCall", name: "get_time", params: {}, result: "noon", startsNewChunk: false },
      "It is 8 at noon.",
    ]);
    expect(history.at(-1)).toEqual({ type: "model", response: [] });
  });

  it("round-trips messages -> history -> messages", () => {
    const back = fromLlamaChatHistory(toLlamaChatHistory(messages));
    expect(back).toEqual(messages);
  });

  it("round-trips history -> messages -> history", () => {
    const history = toLlamaChatHistory(messages);
    expect(toLlamaChatHistory(fromLlamaChatHistory(history))).toEqual(history);
  });

  it("resumes inside the model turn after tool results (no empty user turn), and leaves out calls without a result", () => {
    const resumed = toLlamaChatHistory([
      { role: "user", content: "Roll" },
      {
        role: "assistant",
        content: "",
        toolCalls: [
          { id: "a", name: "roll_dice", arguments: { notation: "1d4" } },
          { id: "b", name: "roll_dice", arguments: { notation: "1d8" } },
        ],
      },
      {
        role: "tool",
        callId: "a",
        name: "roll_dice",
        result: { content: [{ type: "text", text: "boom" }], isError: true },
      },
    ]);
    expect(resumed).toEqual([
      { type: "user", text: "Roll" },
      {
        type: "model",
        response: [
          {
            type: "functionCall",
            name: "roll_dice",
            params: { notation: "1d4" },
            result: "Error: boom",
            startsNewChunk: true,
          },
        ],
      },
    ]);
  });
});
