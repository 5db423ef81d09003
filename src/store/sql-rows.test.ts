import type { CallToolResult } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../core/agent-message.js";
import { messageFromRow, messageToColumns, runFromRow, toolCallFromRow } from "./sql-rows.js";

const row = (message: AgentMessage, resultJson?: ReadonlyMap<CallToolResult, string>) => ({
  role: message.role,
  ...messageToColumns(message, resultJson),
});

describe("SQL rows", () => {
  it("every message shape reads back as written; only what people and the model said is in content", () => {
    const result: CallToolResult = { content: [{ type: "text", text: "4" }], isError: false };
    const messages: AgentMessage[] = [
      { role: "system", content: "Be brief." },
      { role: "user", content: "2+2?" },
      {
        role: "assistant",
        content: "",
        reasoning: "add",
        toolCalls: [{ id: "c1", name: "add", arguments: { a: 2, b: 2 } }],
      },
      { role: "tool", callId: "c1", name: "add", result },
      { role: "assistant", content: "4." },
    ];
    for (const message of messages) expect(messageFromRow(row(message))).toEqual(message);
    expect(row(messages[3] as AgentMessage).content).toBe("");
    expect(row(messages[1] as AgentMessage).data).toBeNull();
    // A result serialized for its tool call is spliced in as is, and reads back the same.
    const spliced = row(messages[3] as AgentMessage, new Map([[result, JSON.stringify(result)]]));
    expect(spliced.data).toBe(row(messages[3] as AgentMessage).data);
  });

  it("a running run has no stop reason whatever an old row says; NULL JSON columns read as their defaults", () => {
    const base = {
      id: "r1",
      conversation_id: "c1",
      model: "m",
      options: null,
      limits: '{"maxSteps":3}',
      step_count: 2,
      tool_call_count: 1,
      consecutive_failures: 0,
      repairs: 0,
      active_ms: 5,
      owner: null,
      created_at: "t0",
      updated_at: "t1",
    };
    expect(
      runFromRow({ ...base, status: "running", stop_reason: "awaiting-approval" }).stopReason,
    ).toBeNull();
    const paused = runFromRow({ ...base, status: "paused", stop_reason: "awaiting-approval" });
    expect(paused).toMatchObject({ stopReason: "awaiting-approval", options: {}, limits: { maxSteps: 3 } });
    const call = toolCallFromRow({
      run_id: "r1",
      id: "c1",
      step: 1,
      position: 0,
      name: "add",
      arguments: '{"a":1}',
      state: "pending",
      outcome: null,
      result: null,
      policy: null,
      started_at: null,
      finished_at: null,
      duration_ms: null,
    });
    expect(call).toMatchObject({ approval: null, result: null, durationMs: null, arguments: { a: 1 } });
  });
});
