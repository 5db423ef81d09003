import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import { AnthropicMessagesModel } from "../../src/models/anthropic/anthropic-messages-model.js";
import { callsOf, collectEvents, textOf } from "./helpers/collect-events.js";
import { type ReplayServer, startSseReplayServer } from "./helpers/sse-replay-server.js";
import { createArithmeticTools } from "./helpers/test-tools.js";

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function modelFor(fixtures: string[], extra: { parallelToolCalls?: boolean } = {}) {
  server = await startSseReplayServer(fixtures);
  return new AnthropicMessagesModel({
    model: "claude-haiku-4-5",
    baseURL: server.origin,
    apiKey: "sk-ant-test",
    ...extra,
  });
}

describe("anthropic backend over recorded SSE (real @anthropic-ai/sdk client, loopback HTTP)", () => {
  it("streams text and two tool_use blocks (one without input) with ids, and maps tool_choice any", async () => {
    const model = await modelFor(["anthropic-tool-use.sse"], { parallelToolCalls: false });
    const { registry } = createArithmeticTools();
    const events = await collectEvents(model, {
      messages: [
        { role: "system", content: "Be brief." },
        { role: "user", content: "12+30?" },
      ],
      tools: registry.definitions().map((d) => d.tool),
      toolChoice: "required",
    });
    expect(textOf(events)).toBe("I'll add those.");
    expect(callsOf(events)).toEqual([
      { id: "toolu_01KF", name: "add", arguments: { a: 12, b: 30 } },
      { id: "toolu_01KG", name: "noargs", arguments: {} },
    ]);
    expect(events.at(-1)).toEqual({
      type: "finish",
      reason: "tool-calls",
      usage: { inputTokens: 849, outputTokens: 47 },
    });
    const request = server?.requests[0];
    expect(request?.url).toBe("/v1/messages");
    // SDK 1.x sends the key as a bearer token (0.x used x-api-key).
    expect(`${request?.headers["x-api-key"] ?? ""} ${request?.headers.authorization ?? ""}`).toContain(
      "sk-ant-test",
    );
    expect(request?.body.system).toBe("Be brief.");
    expect(request?.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "12+30?" }] }]);
    expect(request?.body.tool_choice).toEqual({ type: "any", disable_parallel_tool_use: true });
    expect(request?.body.max_tokens).toBe(4096);
    expect((request?.body.tools as Array<{ name: string; input_schema: unknown }> | undefined)?.[0]).toEqual({
      name: "add",
      description: "Add two numbers.",
      input_schema: expect.objectContaining({ type: "object", required: ["a", "b"] }),
    });
  });

  it("reports an in-stream overloaded error with advice to retry", async () => {
    const model = await modelFor(["anthropic-overloaded.sse"]);
    await expect(collectEvents(model, { messages: [{ role: "user", content: "hi" }] })).rejects.toThrow(
      /Overloaded|overloaded/,
    );
  });

  it("refuses to start without an API key, saying which variable to set", () => {
    const saved = process.env.ANTHROPIC_API_KEY;
    delete process.env.ANTHROPIC_API_KEY;
    try {
      expect(() => new AnthropicMessagesModel({ model: "claude-haiku-4-5" })).toThrow(/ANTHROPIC_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
    }
  });

  it("drives a full agent run: both tool_use calls run, their results go back in one user message", async () => {
    const model = await modelFor(["anthropic-tool-use.sse", "anthropic-text.sse"]);
    const { registry, executed } = createArithmeticTools();
    const agent = createAgent({ model, tools: registry, system: "Be brief." });
    const view = await agent.run("12+30?").result;
    expect(view.answer).toBe("12 + 30 = 42.");
    expect(executed.map((e) => e.name).sort()).toEqual(["add", "noargs"]);
    const messages = server?.requests[1]?.body.messages as Array<{ role: string; content: unknown }>;
    expect(messages).toEqual([
      { role: "user", content: [{ type: "text", text: "12+30?" }] },
      {
        role: "assistant",
        content: [
          { type: "text", text: "I'll add those." },
          { type: "tool_use", id: "toolu_01KF", name: "add", input: { a: 12, b: 30 } },
          { type: "tool_use", id: "toolu_01KG", name: "noargs", input: {} },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "toolu_01KF", content: [{ type: "text", text: "42" }] },
          { type: "tool_result", tool_use_id: "toolu_01KG", content: [{ type: "text", text: "ok" }] },
        ],
      },
    ]);
    await agent.close();
  });

  it("a request's stop strings and JSON schema go out as stop_sequences and output_config; json_object is refused", async () => {
    const model = await modelFor(["anthropic-text.sse"]);
    const schema = { type: "object", properties: { a: { type: "string" } }, additionalProperties: false };
    await collectEvents(model, {
      messages: [{ role: "user", content: "hi" }],
      sampling: { stop: ["END"], temperature: 0.3, seed: 4, presencePenalty: 1 },
      responseFormat: { type: "json_schema", name: "out", schema },
    });
    const body = server?.requests[0]?.body;
    expect(body?.stop_sequences).toEqual(["END"]);
    expect(body?.output_config).toEqual({ format: { type: "json_schema", schema } });
    // The Messages API has no seed or penalties, and has deprecated temperature: none of them is sent.
    for (const key of ["temperature", "seed", "presence_penalty", "top_p"])
      expect(body).not.toHaveProperty(key);
    await expect(
      collectEvents(model, {
        messages: [{ role: "user", content: "hi" }],
        responseFormat: { type: "json_object" },
      }),
    ).rejects.toThrow(/json_schema/);
    expect(server?.requests).toHaveLength(1);
  });
});
