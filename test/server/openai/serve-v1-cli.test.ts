import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import Anthropic from "@anthropic-ai/sdk";
import { Agent, tool as agentTool, OpenAIProvider, Runner } from "@openai/agents";
import { generateText, jsonSchema, streamText, tool } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { toOpenAITools } from "../../../src/models/message-converters/openai-chat-messages.js";
import { createBuiltinTools } from "../../../src/tools/builtin/index.js";
import { runCli } from "../../helpers/run-cli.js";
import { type ServeProcess, startServe } from "../../helpers/serve-process.js";

// `toolbridge serve` as a user runs it — the built bin, no config at all — answering OpenAI clients at /v1 with the
// bundled demo model.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const dir = mkdtempSync(path.join(tmpdir(), "tb-serve-v1-"));
let serve: ServeProcess | undefined;
let url: string;
let stdout = "";

beforeAll(async () => {
  serve = await startServe(["--db", path.join(dir, "db.sqlite")], {
    cwd: dir,
    env: { TOOLBRIDGE_MODEL: "", TOOLBRIDGE_BASE_URL: "", TOOLBRIDGE_PROVIDER: "" },
  });
  url = serve.url;
  stdout = serve.output();
});
afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const builtin = createBuiltinTools().filter((d) =>
  ["calculator", "roll_dice", "get_time"].includes(d.tool.name),
);
const DEMO_TOOLS = toOpenAITools(builtin.map((d) => d.tool));

describe("toolbridge serve: /v1 with no config", () => {
  it("--help lists /v1 and serve prints its URL and the bundled demo model", () => {
    const help = runCli(["serve", "--help"]);
    expect(help.stdout).toContain("/v1");
    expect(help.stdout).toContain("/v1/chat/completions");
    expect(help.stdout).toContain("/v1/responses");
    expect(help.stdout).toContain("/v1/messages");
    expect(stdout).toContain("models: toolbridge-demo (default toolbridge-demo)");
  });

  it("the openai client streams a forced call from the demo model; finalChatCompletion has it whole", async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(["toolbridge-demo"]);
    const stream = client.chat.completions.stream({
      model: "toolbridge-demo",
      messages: [{ role: "user", content: "what is 15% of 47.50?" }],
      tools: DEMO_TOOLS,
      tool_choice: { type: "function", function: { name: "calculator" } },
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    const call = final.choices[0]!.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("calculator");
    expect(JSON.parse(call.type === "function" ? call.function.arguments : "")).toHaveProperty("expression");
    expect(final.usage!.completion_tokens).toBeGreaterThan(0);
  });
});

/** The demo model's tools in the Responses API's and the Messages API's shapes. */
const RESPONSES_TOOLS = builtin.map((d) => ({
  type: "function" as const,
  name: d.tool.name,
  description: d.tool.description ?? "",
  parameters: d.tool.inputSchema as Record<string, unknown>,
  strict: false,
}));
const MESSAGES_TOOLS = builtin.map((d) => ({
  name: d.tool.name,
  description: d.tool.description ?? "",
  input_schema: d.tool.inputSchema as Anthropic.Tool.InputSchema,
}));

describe("the openai client's Responses API against serve", () => {
  it("responses.create: function_call out, function_call_output in, the final answer uses it", async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    const first = await client.responses.create({
      model: "toolbridge-demo",
      input: "roll 2d6+3",
      tools: RESPONSES_TOOLS,
      tool_choice: "required",
    });
    expect(first.status).toBe("completed");
    const call = first.output.find((o) => o.type === "function_call");
    if (call?.type !== "function_call")
      throw new Error(`no function_call in ${JSON.stringify(first.output)}`);
    expect(call.name).toBe("roll_dice");
    expect(typeof (JSON.parse(call.arguments) as { notation: unknown }).notation).toBe("string");
    const second = await client.responses.create({
      model: "toolbridge-demo",
      input: [
        { role: "user", content: "roll 2d6+3" },
        // What a client replays of the first response: its output items, as they came.
        ...(first.output as OpenAI.Responses.ResponseInputItem[]),
        { type: "function_call_output", call_id: call.call_id, output: "11" },
      ],
      tools: RESPONSES_TOOLS,
    });
    expect(second.output.map((o) => o.type)).toEqual(["message"]);
    expect(second.output_text).toContain("11");
    expect(second.usage!.output_tokens).toBeGreaterThan(0);
  });

  it("responses.stream: the call arrives through the documented events and finalResponse has it whole", async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    const stream = client.responses.stream({
      model: "toolbridge-demo",
      input: "what is 15% of 47.50?",
      tools: RESPONSES_TOOLS,
      tool_choice: { type: "function", name: "calculator" },
    });
    const types = new Set<string>();
    stream.on("event", (e) => types.add(e.type));
    const final = await stream.finalResponse();
    const call = final.output.find((o) => o.type === "function_call");
    expect(call?.type === "function_call" && call.name).toBe("calculator");
    expect(JSON.parse(call?.type === "function_call" ? call.arguments : "")).toHaveProperty("expression");
    expect([...types]).toEqual(
      expect.arrayContaining([
        "response.created",
        "response.output_item.added",
        "response.function_call_arguments.delta",
        "response.function_call_arguments.done",
        "response.output_item.done",
        "response.completed",
      ]),
    );
  });
});

describe("the OpenAI Agents SDK (@openai/agents) against serve", () => {
  // The SDK runs the tool itself and sends its output back; resetToolChoice (its default) lets the second turn answer.
  it.each([
    ["Responses (its default)", true],
    ["chat completions", false],
  ])("in %s mode, an agent calls the tool and answers with its result", async (_mode, useResponses) => {
    const calls: unknown[] = [];
    const tools = builtin.map((d) =>
      agentTool({
        name: d.tool.name,
        description: d.tool.description ?? "",
        parameters: d.tool.inputSchema as never,
        strict: false,
        execute: async (input: unknown) => {
          calls.push({ name: d.tool.name, input });
          return "11";
        },
      }),
    );
    const runner = new Runner({
      modelProvider: new OpenAIProvider({ baseURL: `${url}/v1`, apiKey: "unused", useResponses }),
      tracingDisabled: true,
    });
    const agent = new Agent({
      name: "dice",
      model: "toolbridge-demo",
      tools,
      modelSettings: { toolChoice: "required" },
    });
    const result = await runner.run(agent, "roll 2d6+3");
    expect(calls).toEqual([{ name: "roll_dice", input: { notation: expect.any(String) } }]);
    expect(String(result.finalOutput)).toContain("11");
    const streamed = await runner.run(agent, "roll 2d6+3", { stream: true });
    for await (const _event of streamed) {
      // drained: the run completes as the events are read
    }
    await streamed.completed;
    expect(calls).toHaveLength(2);
    expect(String(streamed.finalOutput)).toContain("11");
  });
});

describe("the official Anthropic client's Messages API against serve", () => {
  it("messages.create: tool_use out (stop_reason tool_use), tool_result in, the final answer (end_turn) uses it", async () => {
    const client = new Anthropic({ baseURL: url, apiKey: "unused", maxRetries: 0 });
    const first = await client.messages.create({
      model: "toolbridge-demo",
      max_tokens: 200,
      messages: [{ role: "user", content: "roll 2d6+3" }],
      tools: MESSAGES_TOOLS,
      tool_choice: { type: "any" },
    });
    expect(first.stop_reason).toBe("tool_use");
    const use = first.content.find((b) => b.type === "tool_use");
    if (use?.type !== "tool_use") throw new Error(`no tool_use in ${JSON.stringify(first.content)}`);
    expect(use.name).toBe("roll_dice");
    expect(use.id).toMatch(/^toolu_/);
    const second = await client.messages.create({
      model: "toolbridge-demo",
      max_tokens: 200,
      messages: [
        { role: "user", content: "roll 2d6+3" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "11" }] },
      ],
      tools: MESSAGES_TOOLS,
    });
    expect(second.stop_reason).toBe("end_turn");
    expect(second.content.map((b) => b.type)).toEqual(["text"]);
    expect(second.content[0]?.type === "text" && second.content[0].text).toContain("11");
  });

  it("messages.stream: the tool_use block streams in and finalMessage has its parsed input", async () => {
    const client = new Anthropic({ baseURL: url, apiKey: "unused", maxRetries: 0 });
    const stream = client.messages.stream({
      model: "toolbridge-demo",
      max_tokens: 200,
      messages: [{ role: "user", content: "what is 15% of 47.50?" }],
      tools: MESSAGES_TOOLS,
      tool_choice: { type: "tool", name: "calculator" },
    });
    const json: string[] = [];
    stream.on("inputJson", (partial) => json.push(partial));
    const final = await stream.finalMessage();
    expect(final.stop_reason).toBe("tool_use");
    const use = final.content.find((b) => b.type === "tool_use");
    expect(use?.type === "tool_use" && use.name).toBe("calculator");
    expect(use?.type === "tool_use" && use.input).toHaveProperty("expression");
    expect(json.length).toBeGreaterThan(0);
  });
});

describe("the demo model offered no tools", () => {
  // Trained to call tools, the demo model answers a sum with call markup even when none is offered: that text is its
  // answer (it was dropped as a call before, leaving content "" after ~27 tokens).
  it("answers with the text it wrote, markup and all, and spends no token on nothing", async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
    const response = await client.chat.completions.create({
      model: "toolbridge-demo",
      messages: [{ role: "user", content: "what is 15% of 47.50?" }],
    });
    const choice = response.choices[0]!;
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.message.content).toContain("<tool_call>");
    expect(choice.message.content!.length).toBeGreaterThan(10);
    expect(response.usage!.completion_tokens).toBeGreaterThan(0);
  });
});

describe("the AI SDK's @ai-sdk/openai-compatible provider against serve", () => {
  const provider = () =>
    createOpenAICompatible({ name: "toolbridge", baseURL: `${url}/v1`, includeUsage: true });
  const tools = {
    roll_dice: tool({
      description: builtin.find((d) => d.tool.name === "roll_dice")!.tool.description ?? "",
      inputSchema: jsonSchema<{ notation: string }>(
        builtin.find((d) => d.tool.name === "roll_dice")!.tool.inputSchema as never,
      ),
    }),
    calculator: tool({
      description: builtin.find((d) => d.tool.name === "calculator")!.tool.description ?? "",
      inputSchema: jsonSchema<{ expression: string }>(
        builtin.find((d) => d.tool.name === "calculator")!.tool.inputSchema as never,
      ),
    }),
  };

  it("generateText gets the demo model's tool call with parsed input", async () => {
    const result = await generateText({
      model: provider()("toolbridge-demo"),
      prompt: "roll 2d6+3",
      tools,
      toolChoice: "required",
    });
    expect(result.finishReason).toBe("tool-calls");
    expect(result.toolCalls).toHaveLength(1);
    expect(result.toolCalls[0]!.toolName).toBe("roll_dice");
    expect(typeof (result.toolCalls[0]!.input as { notation: unknown }).notation).toBe("string");
  });

  it("streamText streams the call (zod-strict chunk schema) and then the text answer of a tool-result turn", async () => {
    const first = streamText({
      model: provider()("toolbridge-demo"),
      prompt: "roll 2d6+3",
      tools,
      toolChoice: "required",
    });
    const calls = await first.toolCalls;
    expect(calls.map((c) => c.toolName)).toEqual(["roll_dice"]);
    expect(await first.finishReason).toBe("tool-calls");
    const call = calls[0]!;
    const second = streamText({
      model: provider()("toolbridge-demo"),
      tools,
      messages: [
        { role: "user", content: "roll 2d6+3" },
        {
          role: "assistant",
          content: [
            { type: "tool-call", toolCallId: call.toolCallId, toolName: call.toolName, input: call.input },
          ],
        },
        {
          role: "tool",
          content: [
            {
              type: "tool-result",
              toolCallId: call.toolCallId,
              toolName: call.toolName,
              output: { type: "text", value: "11" },
            },
          ],
        },
      ],
    });
    const text = await second.text;
    expect(await second.finishReason).toBe("stop");
    expect(text).toContain("11");
  });
});
