import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { Ajv } from "ajv";
import OpenAI from "openai";
import type {
  ChatCompletionChunk,
  ChatCompletionFunctionTool,
  ChatCompletionMessageToolCall,
} from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { BUILTIN_CHAT_TEMPLATES } from "../../../src/models/chat-template/builtin-chat-templates.js";
import { writeTestModel } from "../../../src/models/gguf/make-test-model.js";
import { type ServeProcess, startServe } from "../../helpers/serve-process.js";

// `toolbridge serve` as a user runs it — the built bin, a config naming generated tiny GGUFs — driven by the official
// openai client. The weights are random: the tests check structure (calls well-formed and schema-valid, finish
// reasons, usage, status codes), never what the text says. Each model has a fixed seed and one thread, so a given
// request always generates the same tokens.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const dir = mkdtempSync(path.join(tmpdir(), "tb-serve-tiny-"));
// ChatML template: node-llama-cpp's ChatML wrapper, which has no syntax for parallel calls.
writeTestModel(path.join(dir, "tiny.gguf"), { seed: 7 });
// Qwen2.5's template: node-llama-cpp reads its parallel-call syntax from the template.
writeTestModel(path.join(dir, "tiny-qwen.gguf"), {
  seed: 7,
  chatTemplate: BUILTIN_CHAT_TEMPLATES["qwen2.5"].template,
});
writeFileSync(
  path.join(dir, "toolbridge.config.json"),
  JSON.stringify({
    models: {
      tiny: { provider: "llama", path: "tiny.gguf", protocol: "hermes", threads: 1, seed: 3 },
      "tiny-native": { provider: "llama", path: "tiny.gguf", nativeTools: true, threads: 1, seed: 3 },
      "tiny-parallel": { provider: "llama", path: "tiny-qwen.gguf", nativeTools: true, threads: 1, seed: 3 },
      "tiny-busy": {
        provider: "llama",
        path: "tiny.gguf",
        protocol: "hermes",
        threads: 1,
        seed: 3,
        maxConcurrent: 1,
        maxQueued: 1,
      },
    },
  }),
);

let serve: ServeProcess | undefined;
let url: string;
let client: OpenAI;
let stdout = "";

beforeAll(async () => {
  serve = await startServe(["--db", path.join(dir, "db.sqlite")], {
    cwd: dir,
    env: { TOOLBRIDGE_MODEL: "", TOOLBRIDGE_BASE_URL: "", TOOLBRIDGE_PROVIDER: "" },
  });
  url = serve.url;
  stdout = serve.output();
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await serve?.stop();
  rmSync(dir, { recursive: true, force: true });
});

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
        additionalProperties: false,
      },
    },
  },
];

const ajv = new Ajv({ strict: false });
const validators = new Map(TOOLS.map((t) => [t.function.name, ajv.compile(t.function.parameters ?? {})]));

/** A call the client can run: an OpenAI id, an offered tool, arguments that parse and validate against its schema. */
function expectValidCall(call: ChatCompletionMessageToolCall | undefined, name?: string) {
  expect(call?.type).toBe("function");
  if (call?.type !== "function") return;
  expect(call.id).toMatch(/^call_[A-Za-z0-9]+$/);
  if (name) expect(call.function.name).toBe(name);
  const validate = validators.get(call.function.name);
  expect(validate, `${call.function.name} was not offered`).toBeDefined();
  const args: unknown = JSON.parse(call.function.arguments);
  expect(validate?.(args), JSON.stringify(validate?.errors)).toBe(true);
}

const TEXT_AND_NATIVE = ["tiny", "tiny-native"] as const;

describe("toolbridge serve with tiny GGUFs in the config's `models`", () => {
  it("prints the configured models and lists them at /v1/models", async () => {
    expect(stdout).toContain("models: tiny, tiny-native, tiny-parallel, tiny-busy (default tiny)");
    const listed = (await client.models.list()).data;
    expect(listed.map((m) => m.id).sort()).toEqual(["tiny", "tiny-busy", "tiny-native", "tiny-parallel"]);
    expect(listed.every((m) => m.object === "model" && m.owned_by === "llama")).toBe(true);
  });

  it.each(TEXT_AND_NATIVE)(
    "%s: a non-streaming answer has text, a finish reason and usage",
    async (model) => {
      const response = await client.chat.completions.create({
        model,
        messages: [{ role: "user", content: "Hello!" }],
        max_tokens: 8,
      });
      const choice = response.choices[0]!;
      expect(response.object).toBe("chat.completion");
      expect(response.model).toBe(model);
      expect(typeof choice.message.content).toBe("string");
      expect(choice.message.tool_calls).toBeUndefined();
      expect(["stop", "length"]).toContain(choice.finish_reason);
      expect(response.usage!.completion_tokens).toBeGreaterThan(0);
      expect(response.usage!.completion_tokens).toBeLessThanOrEqual(8);
    },
  );

  it.each(TEXT_AND_NATIVE)(
    '%s: tool_choice "required", streamed, assembles into calls that validate',
    async (model) => {
      const final = await client.chat.completions
        .stream({
          model,
          messages: [{ role: "user", content: "Do something." }],
          tools: TOOLS,
          tool_choice: "required",
          max_tokens: 120,
        })
        .finalChatCompletion();
      const choice = final.choices[0]!;
      expect(choice.finish_reason).toBe("tool_calls");
      const calls = choice.message.tool_calls ?? [];
      expect(calls.length).toBeGreaterThanOrEqual(1);
      for (const call of calls) expectValidCall(call);
      // The ChatML wrapper has no parallel-call syntax: native mode returns exactly the one forced call.
      if (model === "tiny-native") expect(calls).toHaveLength(1);
    },
  );

  it.each(TEXT_AND_NATIVE)("%s: a named tool_choice calls that tool with valid arguments", async (model) => {
    for (const name of ["add", "lookup"]) {
      const response = await client.chat.completions.create({
        model,
        messages: [{ role: "user", content: "Go." }],
        tools: TOOLS,
        tool_choice: { type: "function", function: { name } },
        max_completion_tokens: 120,
      });
      const choice = response.choices[0]!;
      expect(choice.finish_reason).toBe("tool_calls");
      expect(choice.message.content).toBeNull();
      expectValidCall(choice.message.tool_calls?.[0], name);
    }
  });

  it.each(TEXT_AND_NATIVE)('%s: tool_choice "none" gives text and no call', async (model) => {
    const response = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "Add 2 and 3." }],
      tools: TOOLS,
      tool_choice: "none",
      max_tokens: 16,
    });
    const choice = response.choices[0]!;
    expect(choice.message.tool_calls).toBeUndefined();
    expect(typeof choice.message.content).toBe("string");
    expect(["stop", "length"]).toContain(choice.finish_reason);
  });

  it.each(TEXT_AND_NATIVE)(
    "%s: a second turn with role:tool results is answered with text",
    async (model) => {
      const response = await client.chat.completions.create({
        model,
        messages: [
          { role: "user", content: "Add 2 and 3." },
          {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "call_abc123", type: "function", function: { name: "add", arguments: '{"a":2,"b":3}' } },
            ],
          },
          { role: "tool", tool_call_id: "call_abc123", content: "5" },
        ],
        tools: TOOLS,
        tool_choice: "auto", // what a client's tool loop sends; these seeds answer with text
        max_tokens: 16,
      });
      const choice = response.choices[0]!;
      expect(["stop", "length"]).toContain(choice.finish_reason);
      expect(typeof choice.message.content).toBe("string");
      expect(choice.message.tool_calls).toBeUndefined();
      expect(response.usage!.prompt_tokens + response.usage!.completion_tokens).toBe(
        response.usage!.total_tokens,
      );
    },
  );

  it.each(TEXT_AND_NATIVE)(
    "%s: stream_options.include_usage ends the stream with a choices:[] usage chunk",
    async (model) => {
      const stream = await client.chat.completions.create({
        model,
        messages: [{ role: "user", content: "Go." }],
        tools: TOOLS,
        tool_choice: { type: "function", function: { name: "add" } },
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 120,
      });
      const chunks: ChatCompletionChunk[] = [];
      for await (const chunk of stream) chunks.push(chunk);
      const usage = chunks.at(-1)!;
      expect(usage.choices).toEqual([]);
      expect(usage.usage!.completion_tokens).toBeGreaterThan(0);
      // The prompt as evaluated: the message and the tool's definition, at least (native mode counts it too).
      expect(usage.usage!.prompt_tokens).toBeGreaterThan(10);
      expect(usage.usage!.total_tokens).toBe(usage.usage!.prompt_tokens + usage.usage!.completion_tokens);
      const rest = chunks.slice(0, -1);
      expect(rest.every((c) => c.usage === null)).toBe(true);
      expect(rest.at(-1)!.choices[0]!.finish_reason).toBe("tool_calls");
    },
  );
});

const RESPONSES_TOOLS = TOOLS.map((t) => ({
  type: "function" as const,
  name: t.function.name,
  description: t.function.description ?? "",
  parameters: t.function.parameters as Record<string, unknown>,
  strict: true,
}));
const MESSAGES_TOOLS = TOOLS.map((t) => ({
  name: t.function.name,
  description: t.function.description ?? "",
  input_schema: t.function.parameters as Anthropic.Tool.InputSchema,
}));

/** A call as either API hands it out, checked as the chat API's calls are. */
function expectValidArguments(name: string, args: unknown, expected?: string) {
  if (expected) expect(name).toBe(expected);
  const validate = validators.get(name);
  expect(validate, `${name} was not offered`).toBeDefined();
  expect(validate?.(args), JSON.stringify(validate?.errors)).toBe(true);
}

describe.each(TEXT_AND_NATIVE)("%s through /v1/responses and /v1/messages", (model) => {
  it("responses: a named tool_choice gives a function_call whose arguments validate; streamed, required gives calls", async () => {
    const whole = await client.responses.create({
      model,
      input: "Go.",
      tools: RESPONSES_TOOLS,
      tool_choice: { type: "function", name: "lookup" },
      max_output_tokens: 120,
    });
    const call = whole.output.find((o) => o.type === "function_call");
    if (call?.type !== "function_call") throw new Error(JSON.stringify(whole.output));
    expect(call.call_id).toMatch(/^call_[A-Za-z0-9]+$/);
    expectValidArguments(call.name, JSON.parse(call.arguments), "lookup");
    expect(whole.usage!.output_tokens).toBeGreaterThan(0);
    const streamed = await client.responses
      .stream({
        model,
        input: "Do something.",
        tools: RESPONSES_TOOLS,
        tool_choice: "required",
        max_output_tokens: 120,
      })
      .finalResponse();
    const calls = streamed.output.filter((o) => o.type === "function_call");
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const c of calls)
      if (c.type === "function_call") expectValidArguments(c.name, JSON.parse(c.arguments));
    expect(streamed.status).toBe("completed");
  });

  it("responses: text.format json_schema gives output_text that validates; max_output_tokens cut is incomplete", async () => {
    const schema = {
      type: "object",
      properties: { word: { type: "string", maxLength: 8 } },
      required: ["word"],
      additionalProperties: false,
    };
    if (model === "tiny") {
      const json = await client.responses.create({
        model,
        input: "Answer in JSON.",
        text: { format: { type: "json_schema", name: "answer", schema, strict: true } },
        max_output_tokens: 60,
      });
      expect(new Ajv({ strict: false }).compile(schema)(JSON.parse(json.output_text))).toBe(true);
    }
    const cut = await client.responses.create({ model, input: "Write a lot.", max_output_tokens: 3 });
    // These seeds write on past 3 tokens: the answer is cut, and says so.
    expect(cut.status).toBe("incomplete");
    expect(cut.incomplete_details?.reason).toBe("max_output_tokens");
    expect(cut.usage!.output_tokens).toBe(3);
  });

  it("messages: a named tool gives tool_use whose input validates; streamed, any gives tool_use; max_tokens is reported", async () => {
    const anthropic = new Anthropic({ baseURL: url, apiKey: "unused", maxRetries: 0 });
    const whole = await anthropic.messages.create({
      model,
      max_tokens: 120,
      messages: [{ role: "user", content: "Go." }],
      tools: MESSAGES_TOOLS,
      tool_choice: { type: "tool", name: "add" },
    });
    expect(whole.stop_reason).toBe("tool_use");
    const use = whole.content.find((b) => b.type === "tool_use");
    if (use?.type !== "tool_use") throw new Error(JSON.stringify(whole.content));
    expectValidArguments(use.name, use.input, "add");
    const streamed = await anthropic.messages
      .stream({
        model,
        max_tokens: 120,
        messages: [{ role: "user", content: "Do something." }],
        tools: MESSAGES_TOOLS,
        tool_choice: { type: "any", disable_parallel_tool_use: true },
      })
      .finalMessage();
    const uses = streamed.content.filter((b) => b.type === "tool_use");
    expect(uses).toHaveLength(1);
    for (const u of uses) if (u.type === "tool_use") expectValidArguments(u.name, u.input);
    expect(streamed.stop_reason).toBe("tool_use");
    const cut = await anthropic.messages.create({
      model,
      max_tokens: 2,
      messages: [{ role: "user", content: "Write a lot." }],
    });
    expect(cut.stop_reason).toBe("max_tokens");
    expect(cut.usage.output_tokens).toBe(2);
  });
});

describe("parallel calls from a native GGUF whose chat template has a parallel-call syntax", () => {
  // After a call, node-llama-cpp lets the model either close the call section or start another call; a random model
  // almost never picks the one token that closes it, so a forced turn comes back as several calls.
  it("come back as several well-formed calls, indexed in order, each with its own id", async () => {
    const stream = client.chat.completions.stream({
      model: "tiny-parallel",
      messages: [{ role: "user", content: "Look these up." }],
      tools: TOOLS,
      tool_choice: { type: "function", function: { name: "lookup" } },
      max_tokens: 120,
    });
    const indices: number[] = [];
    stream.on("chunk", (chunk) => {
      for (const call of chunk.choices[0]?.delta.tool_calls ?? []) if (call.id) indices.push(call.index);
    });
    const final = await stream.finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls ?? [];
    expect(final.choices[0]!.finish_reason).toBe("tool_calls");
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(indices).toEqual(calls.map((_, i) => i));
    expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
    for (const call of calls) expectValidCall(call, "lookup");
  });

  it("parallel_tool_calls: false keeps only the first of them", async () => {
    const request = {
      model: "tiny-parallel",
      messages: [{ role: "user" as const, content: "Look these up." }],
      tools: TOOLS,
      tool_choice: { type: "function" as const, function: { name: "lookup" } },
      max_tokens: 120,
    };
    const all = await client.chat.completions.create(request);
    const one = await client.chat.completions.create({ ...request, parallel_tool_calls: false });
    expect(all.choices[0]!.message.tool_calls!.length).toBeGreaterThanOrEqual(2);
    expect(one.choices[0]!.message.tool_calls).toHaveLength(1);
    expectValidCall(one.choices[0]!.message.tool_calls![0], "lookup");
    expect(one.choices[0]!.finish_reason).toBe("tool_calls");
  });
});

describe("a GGUF's concurrency limit through serve", () => {
  it("beyond maxConcurrent + maxQueued a request gets 503 with Retry-After; the server keeps serving", async () => {
    const post = (body: object, signal?: AbortSignal) =>
      fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          model: "tiny-busy",
          messages: [{ role: "user", content: "Write." }],
          ...body,
        }),
        ...(signal ? { signal } : {}),
      });
    // Loaded first, so the timing below is generation, not loading.
    expect((await post({ max_tokens: 1 })).status).toBe(200);
    // The 200 headers of a stream go out only once its generation has the slot (the route waits for the first
    // event), so from here on the one slot is taken — for thousands of tokens, as the client reads none of them.
    const holder = new AbortController();
    const long = await post({ stream: true, max_tokens: 8000 }, holder.signal);
    expect(long.status).toBe(200);
    // One more waits in the queue (maxQueued 1); the other is refused at once.
    const pending = [post({ max_tokens: 4 }), post({ max_tokens: 4 })];
    const first = await Promise.race(pending);
    expect(first.status).toBe(503);
    expect(first.headers.get("retry-after")).toBe("1");
    const error = (await first.json()) as { error: { type: string; message: string } };
    expect(error.error.message).toMatch(/busy.*maxConcurrent/);
    // The client that holds the slot goes away: its generation stops, the queued request runs.
    holder.abort();
    const statuses = (await Promise.all(pending)).map((r) => r.status).sort();
    expect(statuses).toEqual([200, 503]);
    const queued = (await Promise.all(pending)).find((r) => r.status === 200)!;
    const answer = (await queued.json()) as { choices: { finish_reason: string }[] };
    expect(["stop", "length"]).toContain(answer.choices[0]!.finish_reason);
    expect(serve?.child.exitCode).toBeNull();
    expect((await post({ max_tokens: 2 })).status).toBe(200);
  });
});
