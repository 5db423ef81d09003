import { describe, expect, it } from "vitest";
import type { Conversation } from "../api/types.js";
import { conversationTurns } from "./conversation-turns.js";

const run = (runId: string) => ({
  runId,
  conversationId: "c",
  status: "finished" as const,
  stopReason: "final-answer",
  model: "m",
  steps: 1,
  toolCalls: 0,
  createdAt: "",
  updatedAt: "",
});

describe("conversation turns", () => {
  it("pairs each run with its prompt; repair requests are not prompts", () => {
    const conversation: Conversation = {
      conversationId: "c",
      title: null,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "first" },
        { role: "assistant", content: "", toolCalls: [{ id: "x", name: "add", arguments: {} }] },
        { role: "user", content: "[tool call error] write it again" },
        { role: "assistant", content: "one" },
        { role: "user", content: "second" },
        { role: "assistant", content: "two" },
      ],
      runs: [run("r1"), run("r2")],
    };
    const turns = conversationTurns(conversation);
    expect(turns.map((t) => [t.runId, t.prompt, t.messages.length])).toEqual([
      ["r1", "first", 4],
      ["r2", "second", 2],
    ]);
  });
});
