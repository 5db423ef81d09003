import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import OpenAI from "openai";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveModelCatalog } from "../../../src/cli/serve-models.js";
import { parseConfig } from "../../../src/config/load-config.js";
import { bundledModelPath } from "../../../src/models/bundled-model.js";
import { writeTestModel } from "../../../src/models/gguf/make-test-model.js";
import { toOpenAITools } from "../../../src/models/message-converters/openai-chat-messages.js";
import type { ModelCatalog } from "../../../src/server/model-catalog.js";
import { type RunningServer, startServer } from "../../../src/server/start-server.js";
import { createBuiltinTools } from "../../../src/tools/builtin/index.js";
import { ToolExecutor } from "../../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { validateToolInput } from "../../../src/tools/validate-tool-input.js";
import { waitFor } from "../../helpers/wait-for.js";

// Real parts: `startServer` with /v1 over node-llama-cpp — the bundled demo model and a generated tiny GGUF (random
// weights, so tests check that calls are well-formed and schema-valid, never that they make sense).
const dir = mkdtempSync(path.join(tmpdir(), "tb-v1-"));
const tiny = path.join(dir, "tiny.gguf");
writeTestModel(tiny, { seed: 7 });

const TOOLS: ChatCompletionFunctionTool[] = [
  {
    type: "function",
    function: {
      name: "add",
      description: "Add two numbers",
      parameters: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
        additionalProperties: false,
      },
    },
  },
  {
    type: "function",
    function: {
      name: "lookup",
      description: "Look a word up",
      parameters: {
        type: "object",
        properties: { word: { type: "string", maxLength: 12 } },
        required: ["word"],
      },
    },
  },
];
/** The built-in tools the demo model was trained with, exactly as a client would send them. */
const DEMO_TOOLS = toOpenAITools(
  createBuiltinTools()
    .filter((d) => ["calculator", "roll_dice", "get_time"].includes(d.tool.name))
    .map((d) => d.tool),
);

function schemaOf(tools: readonly ChatCompletionFunctionTool[], name: string) {
  const tool = tools.find((t) => t.function.name === name);
  if (!tool) throw new Error(`the model called ${name}, which was not offered`);
  return { name, inputSchema: tool.function.parameters as { type: "object" } };
}

function expectValidCall(
  call: { type?: string; id: string; function: { name: string; arguments: string } },
  tools: readonly ChatCompletionFunctionTool[],
) {
  expect(call.id).toMatch(/^call_[A-Za-z0-9]+$/);
  const args: unknown = JSON.parse(call.function.arguments);
  expect(validateToolInput(schemaOf(tools, call.function.name), args).ok).toBe(true);
}

let server: RunningServer;
let models: ModelCatalog;
let client: OpenAI;

beforeAll(async () => {
  const config = parseConfig(
    {
      model: { provider: "llama", path: bundledModelPath(), nativeTools: false },
      models: {
        "tiny-text": { provider: "llama", path: tiny, protocol: "hermes", threads: 1, seed: 3 },
        "tiny-native": { provider: "llama", path: tiny, nativeTools: true, threads: 1, seed: 3 },
        "tiny-busy": {
          provider: "llama",
          path: tiny,
          protocol: "hermes",
          threads: 1,
          maxConcurrent: 1,
          maxQueued: 1,
        },
      },
    },
    "toolbridge.config.json",
    dir,
  );
  models = serveModelCatalog({
    config,
    configFile: path.join(dir, "toolbridge.config.json"),
    env: {},
  }) as ModelCatalog;
  const registry = new ToolRegistry();
  server = await startServer({ registry, executor: new ToolExecutor(registry), port: 0, openai: { models } });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("GET /v1/models", () => {
  it("lists the named models and the default one; an unknown model is 404 model_not_found", async () => {
    const list = await client.models.list();
    expect(list.data.map((m) => m.id).sort()).toEqual([
      "tiny-busy",
      "tiny-native",
      "tiny-text",
      "toolbridge-demo",
    ]);
    expect(models.defaultName).toBe("toolbridge-demo");
    expect((await client.models.retrieve("tiny-text")).owned_by).toBe("llama");
    const error = await client.chat.completions
      .create({ model: "nope", messages: [{ role: "user", content: "hi" }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe("model_not_found");
    expect((error as Error).message).toMatch(/Available: .*toolbridge-demo/);
  });
});

describe("POST /v1/chat/completions with the official openai client", () => {
  it("the demo model answers a non-streaming request with a schema-valid call of the tool it was trained on", async () => {
    const response = await client.chat.completions.create({
      model: "toolbridge-demo",
      messages: [{ role: "user", content: "roll 2d6+3" }],
      tools: DEMO_TOOLS,
    });
    const choice = response.choices[0]!;
    expect(response.object).toBe("chat.completion");
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.content).toBeNull();
    expect(choice.message.tool_calls?.map((c) => c.type === "function" && c.function.name)).toEqual([
      "roll_dice",
    ]);
    expectValidCall(choice.message.tool_calls![0] as never, DEMO_TOOLS);
    expect(response.usage!.prompt_tokens).toBeGreaterThan(0);
    expect(response.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it("a second turn with role:tool results (assistant content null, as runTools replays it) gets an answer", async () => {
    const response = await client.chat.completions.create({
      model: "toolbridge-demo",
      messages: [
        { role: "user", content: "roll 2d6+3" },
        {
          role: "assistant",
          content: null,
          refusal: null,
          tool_calls: [
            {
              id: "call_abc123",
              type: "function",
              function: { name: "roll_dice", arguments: '{"notation":"2d6+3"}' },
            },
          ],
        } as never,
        { role: "tool", tool_call_id: "call_abc123", content: "11 (2d6+3: [4, 4] + 3)" },
      ],
      tools: DEMO_TOOLS,
      tool_choice: "auto",
    });
    const choice = response.choices[0]!;
    expect(choice.finish_reason).toBe("stop");
    expect(choice.message.tool_calls).toBeUndefined();
    expect(choice.message.content).toContain("11");
  });

  it("streams a required call (text protocol, grammar-bound) that finalChatCompletion assembles and that validates", async () => {
    for (const model of ["tiny-text", "tiny-native"]) {
      const stream = client.chat.completions.stream({
        model,
        messages: [{ role: "user", content: "Do something." }],
        tools: TOOLS,
        tool_choice: "required",
        max_tokens: 200,
      });
      const final = await stream.finalChatCompletion();
      const choice = final.choices[0]!;
      expect(choice.finish_reason, model).toBe("tool_calls");
      expect(choice.message.tool_calls?.length, model).toBeGreaterThanOrEqual(1);
      for (const call of choice.message.tool_calls!) expectValidCall(call as never, TOOLS);
    }
  });

  it("a named tool_choice calls that tool, with arguments valid for its schema", async () => {
    for (const model of ["tiny-text", "tiny-native"]) {
      for (const name of ["add", "lookup"]) {
        const response = await client.chat.completions.create({
          model,
          messages: [{ role: "user", content: "Go." }],
          tools: TOOLS,
          tool_choice: { type: "function", function: { name } },
          max_completion_tokens: 200,
        });
        const calls = response.choices[0]!.message.tool_calls ?? [];
        expect(calls.length, `${model} ${name}`).toBeGreaterThanOrEqual(1);
        expect(calls[0]!.type === "function" && calls[0]!.function.name).toBe(name);
        expectValidCall(calls[0] as never, TOOLS);
      }
    }
  });

  it('tool_choice "none" gives text and no call', async () => {
    const response = await client.chat.completions.create({
      model: "toolbridge-demo",
      messages: [{ role: "user", content: "roll 2d6+3" }],
      tools: DEMO_TOOLS,
      tool_choice: "none",
      max_tokens: 24,
    });
    const choice = response.choices[0]!;
    expect(choice.message.tool_calls).toBeUndefined();
    expect(typeof choice.message.content).toBe("string");
    expect(choice.finish_reason).not.toBe("tool_calls");
  });

  it("max_tokens bounds the answer: finish_reason length, completion_tokens within it", async () => {
    const response = await client.chat.completions.create({
      model: "tiny-text",
      messages: [{ role: "user", content: "Say a lot." }],
      max_tokens: 5,
    });
    expect(response.choices[0]!.finish_reason).toBe("length");
    expect(response.usage!.completion_tokens).toBeLessThanOrEqual(5);
    expect(response.usage!.completion_tokens).toBeGreaterThan(0);
  });

  it("streams text with include_usage: every chunk has usage null, then a choices:[] usage chunk, then [DONE]", async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "tiny-text",
        messages: [{ role: "user", content: "Hello" }],
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 12,
        some_unknown_field: { ignored: true },
      }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = (await res.text()).split("\n\n").filter(Boolean);
    expect(events.at(-1)).toBe("data: [DONE]");
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.replace(/^data: /, "")));
    const usage = chunks.at(-1);
    expect(usage.choices).toEqual([]);
    expect(usage.usage.completion_tokens).toBeGreaterThan(0);
    expect(usage.usage.total_tokens).toBe(usage.usage.prompt_tokens + usage.usage.completion_tokens);
    const rest = chunks.slice(0, -1);
    expect(rest.every((c) => c.usage === null && c.object === "chat.completion.chunk")).toBe(true);
    expect(rest[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    expect(rest.at(-1).choices[0]).toMatchObject({ delta: {}, finish_reason: "length" });
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  // Text arriving within one write window goes out as one delta (bench:server-v1 measures what that saves): nothing of
  // it may be lost, doubled or reordered.
  it("streams exactly the text of the non-streamed answer, however its tokens are grouped into chunks", async () => {
    const body = {
      model: "tiny-text",
      messages: [{ role: "user", content: "Tell me a long story." }],
      max_tokens: 300,
      stream_options: { include_usage: true },
    };
    const post = (stream: boolean) =>
      fetch(`${server.url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(stream ? { ...body, stream } : { ...body, stream_options: undefined }),
      });
    const whole = (await (await post(false)).json()) as {
      choices: { message: { content: string } }[];
      usage: { completion_tokens: number };
    };
    const chunks = (await (await post(true)).text())
      .split("\n\n")
      .filter((e) => e && e !== "data: [DONE]")
      .map((e) => JSON.parse(e.replace(/^data: /, "")));
    const textChunks = chunks.filter((c) => typeof c.choices[0]?.delta?.content === "string");
    const streamed = textChunks.map((c) => c.choices[0].delta.content).join("");
    expect(streamed).toBe(whole.choices[0]?.message.content);
    expect(whole.usage.completion_tokens).toBeGreaterThan(100);
  });

  it('streams a call on the wire as OpenAI does: header fragment with arguments "", then the whole arguments', async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "tiny-text",
        messages: [{ role: "user", content: "Add." }],
        tools: TOOLS,
        tool_choice: { type: "function", function: { name: "add" } },
        stream: true,
      }),
    });
    const chunks = (await res.text())
      .split("\n\n")
      .filter((e) => e && e !== "data: [DONE]")
      .map((e) => JSON.parse(e.replace(/^data: /, "")));
    const deltas = chunks.map((c) => c.choices[0].delta);
    expect(deltas[0]).toEqual({
      role: "assistant",
      content: null,
      tool_calls: [
        {
          index: 0,
          id: expect.stringMatching(/^call_[A-Za-z0-9]+$/),
          type: "function",
          function: { name: "add", arguments: "" },
        },
      ],
    });
    expect(deltas[1].tool_calls[0].index).toBe(0);
    expect(Object.keys(deltas[1].tool_calls[0])).toEqual(["index", "function"]);
    expectValidCall(
      {
        id: deltas[0].tool_calls[0].id,
        function: { name: "add", arguments: deltas[1].tool_calls[0].function.arguments },
      },
      TOOLS,
    );
    expect(chunks.at(-1).choices[0]).toMatchObject({ delta: {}, finish_reason: "tool_calls" });
    expect("usage" in chunks.at(-1)).toBe(false);
  });
});

describe("invalid requests get OpenAI-shaped 4xx errors and change nothing", () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
  const ok = { model: "tiny-text", messages: [{ role: "user", content: "hi" }] };

  it.each([
    ["not JSON", "{nope", null],
    ["no messages", { model: "tiny-text" }, "messages"],
    ["no model", { messages: ok.messages }, "model"],
    [
      "a named tool that is not offered",
      { ...ok, tools: TOOLS, tool_choice: { type: "function", function: { name: "nope" } } },
      "tool_choice.function.name",
    ],
    ["required without tools", { ...ok, tool_choice: "required" }, "tool_choice"],
    [
      "an image part",
      { ...ok, messages: [{ role: "user", content: [{ type: "image_url", image_url: { url: "x" } }] }] },
      "messages[0].content[0]",
    ],
    [
      "a tool result for no call",
      { ...ok, messages: [...ok.messages, { role: "tool", tool_call_id: "call_x", content: "1" }] },
      "messages[1].tool_call_id",
    ],
    ["a custom tool", { ...ok, tools: [{ type: "custom", custom: { name: "x" } }] }, "tools[0].type"],
    [
      "a bad tool name",
      { ...ok, tools: [{ type: "function", function: { name: "has space" } }] },
      "tools[0].function.name",
    ],
    ["max_tokens 0", { ...ok, max_tokens: 0 }, "max_tokens"],
    ["n = 2", { ...ok, n: 2 }, "n"],
  ])("%s → 400 invalid_request_error", async (_label, body, param) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: Record<string, unknown> };
    expect(json.error).toMatchObject({ type: "invalid_request_error", param });
    expect(Object.keys(json.error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(String(json.error.message).length).toBeGreaterThan(10);
  });

  it("the openai client raises BadRequestError with the param named", async () => {
    const error = await client.chat.completions
      .create({ model: "tiny-text", messages: [], stream: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("messages");
  });

  it("a foreign Origin gets 403 in OpenAI's shape", async () => {
    const res = await post(ok, { origin: "https://evil.example" });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: { type: string } }).error.type).toBe("permission_error");
  });
});

describe("concurrency on one GGUF", () => {
  it("beyond maxConcurrent + maxQueued a request gets 503 with Retry-After; the others finish; nothing crashes", async () => {
    const body = JSON.stringify({
      model: "tiny-busy",
      messages: [{ role: "user", content: "Write." }],
      max_tokens: 400,
    });
    // Loaded first, so the three requests reach the gate together.
    const warm = (await models.get("tiny-busy")).stream({
      messages: [{ role: "user", content: "x" }],
      tools: [],
      toolChoice: "none",
      signal: AbortSignal.timeout(30_000),
      maxTokens: 1,
    });
    for await (const _event of warm);
    const responses = await Promise.all(
      [0, 1, 2].map(() =>
        fetch(`${server.url}/v1/chat/completions`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body,
        }),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 503]);
    const busy = responses.find((r) => r.status === 503)!;
    expect(busy.headers.get("retry-after")).toBe("1");
    expect(((await busy.json()) as { error: { message: string } }).error.message).toMatch(
      /busy.*maxConcurrent/,
    );
    for (const r of responses.filter((r) => r.status === 200)) {
      const json = (await r.json()) as { choices: Array<{ finish_reason: string }> };
      expect(["stop", "length"]).toContain(json.choices[0]!.finish_reason);
    }
    expect(models.load("tiny-busy")).toEqual({ active: 0, waiting: 0 });
  });

  it("concurrent streams share the loaded model, one sequence each; a client that disconnects frees its slot", async () => {
    const controller = new AbortController();
    const stream = await client.chat.completions.create(
      { model: "tiny-text", messages: [{ role: "user", content: "Long." }], stream: true, max_tokens: 2000 },
      { signal: controller.signal },
    );
    const parallel = Promise.all(
      [0, 1].map(() =>
        client.chat.completions.create({
          model: "tiny-text",
          messages: [{ role: "user", content: "Short." }],
          max_tokens: 20,
        }),
      ),
    );
    for await (const _chunk of stream) {
      controller.abort();
      break;
    }
    const done = await parallel;
    expect(done.map((d) => d.choices[0]!.finish_reason).every((r) => r === "stop" || r === "length")).toBe(
      true,
    );
    // The aborted streams give their places back once the server has seen the disconnects.
    await waitFor("the aborted requests to leave the model", () => models.load("tiny-text").active === 0);
    expect(models.load("tiny-text")).toEqual({ active: 0, waiting: 0 });
  });
});
