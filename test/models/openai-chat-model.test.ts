import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import type { AgentMessage } from "../../src/core/agent-message.js";
import { OpenAIChatModel } from "../../src/models/openai/openai-chat-model.js";
import { callsOf, collectEvents, textOf } from "./helpers/collect-events.js";
import { type ReplayServer, startSseReplayServer } from "./helpers/sse-replay-server.js";
import { createArithmeticTools } from "./helpers/test-tools.js";

let server: ReplayServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const user: AgentMessage[] = [{ role: "user", content: "Add 1231 and 2331." }];

async function modelFor(fixtures: string[]) {
  server = await startSseReplayServer(fixtures);
  return new OpenAIChatModel({ model: "gpt-4o-mini", baseURL: `${server.origin}/v1`, apiKey: "sk-test" });
}

describe("openai backend over recorded SSE (real openai client, loopback HTTP)", () => {
  it("streams a recorded OpenAI tool call: call-start, argument deltas, call-end with the server's id, usage", async () => {
    const model = await modelFor(["openai-tool-call.sse"]);
    const { registry } = createArithmeticTools();
    const events = await collectEvents(model, {
      messages: user,
      tools: registry.definitions().map((d) => d.tool),
      toolChoice: { name: "add" },
    });
    expect(events[0]).toEqual({ type: "call-start", id: "call_1EYW", name: "add" });
    expect(
      events
        .filter((e) => e.type === "call-args-delta")
        .map((e) => (e as { text: string }).text)
        .join(""),
    ).toBe('{"a":1231,"b":2331}');
    expect(callsOf(events)).toEqual([{ id: "call_1EYW", name: "add", arguments: { a: 1231, b: 2331 } }]);
    expect(events.at(-1)).toEqual({
      type: "finish",
      reason: "tool-calls",
      usage: { inputTokens: 54, outputTokens: 20 },
    });
    const body = server?.requests[0]?.body ?? {};
    expect(server?.requests[0]?.url).toBe("/v1/chat/completions");
    expect(body.tool_choice).toEqual({ type: "function", function: { name: "add" } });
    expect(body.tools).toEqual([
      {
        type: "function",
        function: expect.objectContaining({
          name: "add",
          description: "Add two numbers.",
          parameters: expect.objectContaining({ type: "object" }),
        }),
      },
      expect.objectContaining({ type: "function" }),
    ]);
    expect(body.max_tokens).toBe(4096);
    expect(body.stream_options).toEqual({ include_usage: true });
  });

  it("keeps parallel calls apart, including Ollama's missing index and index-always-0 streams", async () => {
    for (const [fixture, expected] of [
      [
        "openai-parallel-calls.sse",
        [
          ["call_a", { a: 1, b: 2 }],
          ["call_b", { a: 3, b: 4 }],
        ],
      ],
      [
        "openai-ollama-no-index.sse",
        [
          ["call_x1", { a: 1, b: 2 }],
          ["call_x2", { a: 5, b: 6 }],
        ],
      ],
      [
        "openai-ollama-index-zero.sse",
        [
          ["call_y1", { path: "a.md" }],
          ["call_y2", { path: "b.md" }],
        ],
      ],
    ] as const) {
      const model = await modelFor([fixture]);
      const calls = callsOf(await collectEvents(model, { messages: user }));
      expect(
        calls.map((c) => [c.id, c.arguments]),
        fixture,
      ).toEqual(expected);
      await server?.close();
      server = undefined;
    }
  });

  it("survives missing ids (Mistral-safe ids made), arguments sent as an object, empty arguments, and text before calls", async () => {
    const model = await modelFor(["openai-missing-id-object-args.sse"]);
    const events = await collectEvents(model, { messages: user });
    expect(textOf(events)).toBe("Let me add that.");
    const calls = callsOf(events);
    expect(calls.map((c) => [c.name, c.arguments])).toEqual([
      ["add", { a: 2, b: 40 }],
      ["noargs", {}],
    ]);
    for (const c of calls) expect(c.id).toMatch(/^[a-zA-Z0-9]{9}$/);
    expect(new Set(calls.map((c) => c.id)).size).toBe(2);
  });

  it("turns an in-stream error into a ModelRequestError that names the server", async () => {
    const model = await modelFor(["openai-error.sse"]);
    await expect(collectEvents(model, { messages: user })).rejects.toThrow(/server had an error/);
  });

  it("says how to fix an unreachable server", async () => {
    const model = new OpenAIChatModel({ model: "m", baseURL: "http://127.0.0.1:9/v1" });
    await expect(collectEvents(model, { messages: user })).rejects.toThrow(
      /Could not reach the model server at http:\/\/127\.0\.0\.1:9\/v1/,
    );
  });

  it("re-asks once when a server ignores tool_choice required (vLLM #44216), keeping only the second answer", async () => {
    const model = await modelFor(["openai-text.sse", "openai-tool-call.sse"]);
    const { registry } = createArithmeticTools();
    const events = await collectEvents(model, {
      messages: user,
      tools: registry.definitions().map((d) => d.tool),
      toolChoice: "required",
    });
    expect(textOf(events)).toBe("");
    expect(callsOf(events)).toHaveLength(1);
    const second = server?.requests[1]?.body.messages as Array<{ role: string; content: string }>;
    expect(second.at(-2)).toEqual({ role: "assistant", content: "The sum is 3562." });
    expect(second.at(-1)?.content).toMatch(/You must call one of the tools now/);
  });

  it("drives a full agent run: the model calls a registry tool, the result goes back under the server's call id", async () => {
    const model = await modelFor(["openai-tool-call.sse", "openai-text.sse"]);
    const { registry, executed } = createArithmeticTools();
    const agent = createAgent({ model, tools: registry });
    const view = await agent.run("Add 1231 and 2331.").result;
    expect(view.status).toBe("finished");
    expect(view.answer).toBe("The sum is 3562.");
    expect(executed).toEqual([{ name: "add", args: { a: 1231, b: 2331 } }]);
    const replay = server?.requests[1]?.body.messages as Array<Record<string, unknown>>;
    expect(replay.slice(-2)).toEqual([
      {
        role: "assistant",
        content: "",
        tool_calls: [
          { id: "call_1EYW", type: "function", function: { name: "add", arguments: '{"a":1231,"b":2331}' } },
        ],
      },
      { role: "tool", tool_call_id: "call_1EYW", content: "3562" },
    ]);
    await agent.close();
  });
});
