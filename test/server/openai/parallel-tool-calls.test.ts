import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI from "openai";
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
} from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { AnthropicMessagesModel } from "../../../src/models/anthropic/anthropic-messages-model.js";
import { BUILTIN_CHAT_TEMPLATES } from "../../../src/models/chat-template/builtin-chat-templates.js";
import { createModel } from "../../../src/models/create-model.js";
import { writeTestModel } from "../../../src/models/gguf/make-test-model.js";
import { createLlamaModel } from "../../../src/models/llama/index.js";
import { ModelCatalog } from "../../../src/server/model-catalog.js";
import { type RunningServer, startServer } from "../../../src/server/start-server.js";
import { ToolExecutor } from "../../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { CALCULATOR, calcCall, EXPRESSIONS } from "../../models/helpers/calculator-call.js";
import { collectEvents } from "../../models/helpers/collect-events.js";
import {
  type CompletionRequestBody,
  type LlamaServer,
  startLlamaOpenAIServer,
} from "../../models/helpers/llama-openai-server.js";
import { startSseReplayServer } from "../../models/helpers/sse-replay-server.js";
import { createArithmeticTools } from "../../models/helpers/test-tools.js";

// `parallel_tool_calls: false` on /v1 reaches the model: every backend is told (request body, catalogue, node-llama-cpp
// option) and generation ends after the first call, instead of the route dropping calls the model spent tokens on.
// Real parts: startServer + the official openai client, node-llama-cpp on generated tiny GGUFs (random weights: the
// tests check structure and token counts, never sense), and /v1/completions and /v1/chat/completions servers in this
// test backed by the same GGUF.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const dir = mkdtempSync(path.join(tmpdir(), "tb-v1-parallel-"));
const gguf = path.join(dir, "tiny.gguf");
writeTestModel(gguf, { seed: 7 });
// Qwen2.5's template: node-llama-cpp reads its parallel-call syntax from it, and a random model keeps making calls.
const ggufQwen = path.join(dir, "tiny-qwen.gguf");
writeTestModel(ggufQwen, { seed: 7, chatTemplate: BUILTIN_CHAT_TEMPLATES["qwen2.5"].template });

const ONE_CALL_LINE = "Call at most one function per turn.";

/** The completions server writes a hermes call, then a second one right after it. */
function plan(body: CompletionRequestBody) {
  if (!body.prompt.includes("<tools>")) return undefined;
  const second = '\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "1 + 1"}}\n</tool_call>';
  return { prefix: "<tool_call>\n", schema: calcCall, suffix: `\n</tool_call>${second}` };
}

const LOOKUP: ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "lookup",
    description: "Look a word up",
    parameters: {
      type: "object",
      properties: { word: { type: "string", maxLength: 12 } },
      required: ["word"],
      additionalProperties: false,
    },
  },
};

let backend: LlamaServer;
let server: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  backend = await startLlamaOpenAIServer({
    modelPath: gguf,
    completionPlan: plan,
    chatPlan: (body) =>
      body.tools?.length && body.tool_choice !== "none"
        ? { calls: body.tools.map((t) => ({ name: t.function.name })) }
        : {},
  });
  const models = new ModelCatalog({
    "tiny-parallel": {
      create: async () => createLlamaModel({ modelPath: ggufQwen, mode: "native", threads: 1, seed: 3 }),
    },
    "tiny-text": {
      create: async () =>
        createLlamaModel({ modelPath: gguf, mode: "text", protocol: "hermes", threads: 1, seed: 3 }),
    },
    "text-only": {
      create: () =>
        createModel({
          backend: "completions",
          baseURL: backend.baseURL,
          model: "tiny",
          chatTemplate: { gguf },
          protocol: "hermes",
          maxTokens: 64,
        }),
    },
    chat: {
      create: () =>
        createModel({
          backend: "openai",
          baseURL: backend.baseURL,
          model: "tiny",
          apiKey: "x",
          maxTokens: 32,
        }),
    },
  });
  const registry = new ToolRegistry();
  server = await startServer({ registry, executor: new ToolExecutor(registry), port: 0, openai: { models } });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  await backend?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The same request with parallel calls allowed (the default) and with `parallel_tool_calls: false`. */
async function bothWays(request: ChatCompletionCreateParamsNonStreaming) {
  const all = await client.chat.completions.create(request);
  const one = await client.chat.completions.create({ ...request, parallel_tool_calls: false });
  return { all, one };
}

describe("parallel_tool_calls: false on a local GGUF", () => {
  it("native mode: node-llama-cpp ends the response after one call, so fewer tokens are generated", async () => {
    const { all, one } = await bothWays({
      model: "tiny-parallel",
      messages: [{ role: "user", content: "Look these up." }],
      tools: [LOOKUP],
      tool_choice: { type: "function", function: { name: "lookup" } },
      max_tokens: 120,
      seed: 11,
    });
    expect(all.choices[0]!.message.tool_calls!.length).toBeGreaterThanOrEqual(2);
    const calls = one.choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(1);
    expect(calls[0]!.type === "function" && calls[0]!.function.name).toBe("lookup");
    expect(one.choices[0]!.finish_reason).toBe("tool_calls");
    expect(one.usage!.completion_tokens).toBeGreaterThan(0);
    expect(one.usage!.completion_tokens).toBeLessThan(all.usage!.completion_tokens);
  });

  it("text mode: a forced call ends the turn right after it, no text or second call generated", async () => {
    const { all, one } = await bothWays({
      model: "tiny-text",
      messages: [{ role: "user", content: "Look it up." }],
      tools: [LOOKUP],
      tool_choice: "required",
      max_tokens: 200,
      seed: 11,
    });
    const calls = one.choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(1);
    expect(calls[0]!.type === "function" && calls[0]!.function.name).toBe("lookup");
    expect(one.choices[0]!.finish_reason).toBe("tool_calls");
    expect(one.choices[0]!.message.content ?? "").toBe("");
    // Allowed to go on, the random model writes on after its call; told not to, it stops at the call's end.
    expect(one.usage!.completion_tokens).toBeLessThan(all.usage!.completion_tokens);
  });
});

describe("parallel_tool_calls: false on HTTP backends", () => {
  it("completions backend: the catalogue asks for one call and the second call in the stream is never read", async () => {
    const request: ChatCompletionCreateParamsNonStreaming = {
      model: "text-only",
      messages: [{ role: "user", content: "Sums" }],
      tools: [CALCULATOR],
    };
    const all = await client.chat.completions.create(request);
    expect(backend.completionRequests.at(-1)?.prompt).not.toContain(ONE_CALL_LINE);
    expect(all.choices[0]!.message.tool_calls).toHaveLength(2);
    const one = await client.chat.completions.create({ ...request, parallel_tool_calls: false });
    expect(backend.completionRequests.at(-1)?.prompt).toContain(ONE_CALL_LINE);
    const calls = one.choices[0]!.message.tool_calls!;
    expect(calls).toHaveLength(1);
    expect(EXPRESSIONS).toContain(
      calls[0]!.type === "function" && JSON.parse(calls[0]!.function.arguments).expression,
    );
    expect(one.choices[0]!.finish_reason).toBe("tool_calls");
  });

  it("openai backend: parallel_tool_calls false is in the request body, and absent when the client sent none", async () => {
    const request: ChatCompletionCreateParamsNonStreaming = {
      model: "chat",
      messages: [{ role: "user", content: "Sum" }],
      tools: [CALCULATOR],
    };
    await client.chat.completions.create(request);
    expect(backend.chatRequests.at(-1)).not.toHaveProperty("parallel_tool_calls");
    await client.chat.completions.create({ ...request, parallel_tool_calls: false });
    expect(backend.chatRequests.at(-1)).toMatchObject({ parallel_tool_calls: false });
    // Without tools there is nothing to send it with.
    await client.chat.completions.create({ ...request, tools: undefined, parallel_tool_calls: false });
    expect(backend.chatRequests.at(-1)).not.toHaveProperty("parallel_tool_calls");
  });

  it("anthropic backend: the request's value sets disable_parallel_tool_use, over the model's default", async () => {
    const replay = await startSseReplayServer(["anthropic-tool-use.sse", "anthropic-tool-use.sse"]);
    try {
      const { registry } = createArithmeticTools();
      const tools = registry.definitions().map((d) => d.tool);
      const messages = [{ role: "user" as const, content: "12+30?" }];
      const model = new AnthropicMessagesModel({
        model: "claude-haiku-4-5",
        baseURL: replay.origin,
        apiKey: "sk-ant-test",
      });
      await collectEvents(model, { messages, tools, toolChoice: "auto", parallelToolCalls: false });
      expect(replay.requests[0]?.body.tool_choice).toEqual({ type: "auto", disable_parallel_tool_use: true });
      const single = new AnthropicMessagesModel({
        model: "claude-haiku-4-5",
        baseURL: replay.origin,
        apiKey: "sk-ant-test",
        parallelToolCalls: false,
      });
      await collectEvents(single, { messages, tools, toolChoice: "auto", parallelToolCalls: true });
      expect(replay.requests[1]?.body.tool_choice).toEqual({ type: "auto" });
    } finally {
      await replay.close();
    }
  });
});
