/**
 * The streamed and whole shapes of /v1/responses and /v1/messages, event by event, against the documented sequences
 * (openai-compat notes §4; OpenAI's Responses streaming reference), and bad input: a 400 in each API's own error shape,
 * the model never asked. The model is scripted, so every event type appears and the sequence is exact; the official
 * clients' own accumulators (responses.stream, messages.stream) must accept every stream.
 */
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LanguageModel, ModelEvent, ModelRequest } from "../../../src/core/language-model.js";
import { ModelCatalog } from "../../../src/server/model-catalog.js";
import { type RunningServer, startServer } from "../../../src/server/start-server.js";
import { ToolExecutor } from "../../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";

const requests: ModelRequest[] = [];

function scripted(id: string, events: ModelEvent[], fail?: string): LanguageModel {
  return {
    id,
    async *stream(request) {
      requests.push(request);
      for (const event of events) yield event;
      if (fail) throw new Error(fail);
    },
  };
}

const USAGE = { inputTokens: 7, outputTokens: 11, reasoningTokens: 3 };
/** Reasoning, text, two calls: every output item and block type, in one turn. */
const FULL: ModelEvent[] = [
  { type: "reasoning-delta", text: "Let me " },
  { type: "reasoning-delta", text: "think." },
  { type: "text-delta", text: "Checking " },
  { type: "text-delta", text: "both." },
  { type: "call-start", id: "a1", name: "add" },
  { type: "call-end", id: "a1", name: "add", arguments: '{"a": 1, "b": 2}' },
  { type: "call-end", id: "a2", name: "add", arguments: { a: 3, b: 4 } },
  { type: "finish", reason: "tool-calls", usage: USAGE },
];

const models = new ModelCatalog({
  full: { create: async () => scripted("full", FULL) },
  long: {
    create: async () =>
      scripted("long", [
        { type: "text-delta", text: "and so on" },
        { type: "finish", reason: "length", usage: USAGE },
      ]),
  },
  stopped: {
    create: async () =>
      scripted("stopped", [
        { type: "text-delta", text: "one two" },
        { type: "finish", reason: "stop", usage: USAGE, stopSequence: "three" },
      ]),
  },
  plain: {
    create: async () =>
      scripted("plain", [
        { type: "text-delta", text: "Hi." },
        { type: "finish", reason: "stop", usage: USAGE },
      ]),
  },
  failing: {
    create: async () =>
      scripted("failing", [{ type: "text-delta", text: "Half an ans" }], "the GPU caught fire"),
  },
});

const ADD_SCHEMA = {
  type: "object",
  properties: { a: { type: "number" }, b: { type: "number" } },
  required: ["a", "b"],
};
const RESPONSES_ADD = { type: "function" as const, name: "add", parameters: ADD_SCHEMA, strict: false };
const MESSAGES_ADD = { name: "add", input_schema: ADD_SCHEMA as Anthropic.Tool.InputSchema };

let server: RunningServer;
let openai: OpenAI;
let anthropic: Anthropic;
beforeAll(async () => {
  const registry = new ToolRegistry();
  server = await startServer({ registry, executor: new ToolExecutor(registry), port: 0, openai: { models } });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: "unused", maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: server.url, apiKey: "unused", maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
});

interface Sse {
  event: string | undefined;
  data: Record<string, unknown>;
}

async function sse(path: string, body: object): Promise<Sse[]> {
  const res = await fetch(`${server.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ ...body, stream: true }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
  const text = await res.text();
  expect(text).not.toContain("[DONE]");
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => {
      const event = /^event: (.*)$/m.exec(block)?.[1];
      const data = JSON.parse(/^data: (.*)$/m.exec(block)![1]!) as Record<string, unknown>;
      return { event, data };
    });
}

describe("/v1/responses streamed", () => {
  it("writes the documented event sequence: items added, their deltas, done, response.completed with usage", async () => {
    const events = await sse("/v1/responses", { model: "full", input: "go", tools: [RESPONSES_ADD] });
    expect(events.map((e) => e.event)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added", // reasoning
      "response.content_part.added",
      "response.reasoning_text.delta",
      "response.reasoning_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added", // message
      "response.content_part.added",
      "response.output_text.delta",
      "response.output_text.done",
      "response.content_part.done",
      "response.output_item.done",
      "response.output_item.added", // first call
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.output_item.added", // second call
      "response.function_call_arguments.delta",
      "response.function_call_arguments.done",
      "response.output_item.done",
      "response.completed",
    ]);
    // The SSE event name is the payload's type; sequence numbers count from 0 without a gap.
    for (const [i, e] of events.entries()) {
      expect(e.data.type).toBe(e.event);
      expect(e.data.sequence_number).toBe(i);
    }
    const created = events[0]!.data.response as Record<string, unknown>;
    expect(created).toMatchObject({ object: "response", status: "in_progress", output: [], model: "full" });
    expect(created.id).toMatch(/^resp_[A-Za-z0-9]+$/);
    const byType = (type: string) => events.filter((e) => e.event === type).map((e) => e.data);
    expect(byType("response.output_item.added").map((d) => d.output_index)).toEqual([0, 1, 2, 3]);
    expect(byType("response.reasoning_text.delta")[0]).toMatchObject({
      delta: "Let me think.",
      output_index: 0,
    });
    expect(byType("response.output_text.delta")[0]).toMatchObject({
      delta: "Checking both.",
      content_index: 0,
    });
    const calls = byType("response.output_item.added")
      .slice(2)
      .map((d) => d.item as Record<string, unknown>);
    expect(calls[0]).toMatchObject({
      type: "function_call",
      name: "add",
      arguments: "",
      status: "in_progress",
    });
    expect(calls[0]!.call_id).toMatch(/^call_[A-Za-z0-9]+$/);
    expect(calls[0]!.id).toMatch(/^fc_[A-Za-z0-9]+$/);
    expect(calls[0]!.call_id).not.toBe(calls[1]!.call_id);
    expect(
      byType("response.function_call_arguments.done").map((d) => JSON.parse(d.arguments as string)),
    ).toEqual([
      { a: 1, b: 2 },
      { a: 3, b: 4 },
    ]);
    const completed = events.at(-1)!.data.response as Record<string, unknown>;
    expect(completed.status).toBe("completed");
    expect((completed.output as Array<{ type: string }>).map((o) => o.type)).toEqual([
      "reasoning",
      "message",
      "function_call",
      "function_call",
    ]);
    expect(completed.usage).toEqual({
      input_tokens: 7,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 11,
      output_tokens_details: { reasoning_tokens: 3 },
      total_tokens: 18,
    });
  });

  it("the openai client's responses.stream assembles the same response as responses.create returns", async () => {
    const stream = openai.responses.stream({ model: "full", input: "go", tools: [RESPONSES_ADD] });
    const deltas: string[] = [];
    stream.on("response.output_text.delta", (e) => deltas.push(e.snapshot));
    const streamed = await stream.finalResponse();
    const whole = await openai.responses.create({ model: "full", input: "go", tools: [RESPONSES_ADD] });
    const shape = (r: OpenAI.Responses.Response) =>
      r.output.map((o) =>
        o.type === "function_call"
          ? { type: o.type, name: o.name, arguments: JSON.parse(o.arguments) as unknown }
          : o.type === "message"
            ? { type: o.type, text: o.content.map((c) => (c.type === "output_text" ? c.text : "")).join("") }
            : o.type === "reasoning"
              ? { type: o.type, text: o.content?.map((c) => c.text).join("") }
              : { type: o.type },
      );
    expect(shape(streamed)).toEqual(shape(whole));
    expect(shape(whole)).toEqual([
      { type: "reasoning", text: "Let me think." },
      { type: "message", text: "Checking both." },
      { type: "function_call", name: "add", arguments: { a: 1, b: 2 } },
      { type: "function_call", name: "add", arguments: { a: 3, b: 4 } },
    ]);
    expect(deltas).toEqual(["Checking both."]);
    expect(streamed.output_text).toBe("Checking both.");
    expect(whole.usage?.total_tokens).toBe(18);
  });

  it("a turn cut by max_output_tokens ends with response.incomplete, reason max_output_tokens", async () => {
    const events = await sse("/v1/responses", { model: "long", input: "go", max_output_tokens: 5 });
    expect(events.at(-1)!.event).toBe("response.incomplete");
    expect(events.at(-1)!.data.response).toMatchObject({
      status: "incomplete",
      incomplete_details: { reason: "max_output_tokens" },
      max_output_tokens: 5,
    });
    const whole = await openai.responses.create({ model: "long", input: "go", max_output_tokens: 5 });
    expect(whole.status).toBe("incomplete");
    expect(whole.output_text).toBe("and so on");
  });

  it("a model that fails after the headers ends the stream with error and response.failed, its text kept", async () => {
    const events = await sse("/v1/responses", { model: "failing", input: "go" });
    expect(events.slice(-2).map((e) => e.event)).toEqual(["error", "response.failed"]);
    expect(events.at(-2)!.data.message).toMatch(/the GPU caught fire/);
    expect(events.at(-1)!.data.response).toMatchObject({
      status: "failed",
      error: { message: expect.stringMatching(/GPU/) },
    });
    expect(
      events.some((e) => e.event === "response.output_text.delta" && e.data.delta === "Half an ans"),
    ).toBe(true);
  });
});

describe("/v1/messages streamed", () => {
  it("writes message_start, blocks in order (start, delta, stop), message_delta with tool_use and usage, message_stop", async () => {
    const events = await sse("/v1/messages", {
      model: "full",
      max_tokens: 100,
      messages: [{ role: "user", content: "go" }],
      tools: [MESSAGES_ADD],
    });
    expect(events.map((e) => e.event)).toEqual([
      "message_start",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "content_block_start",
      "content_block_delta",
      "content_block_stop",
      "message_delta",
      "message_stop",
    ]);
    for (const e of events) expect(e.data.type).toBe(e.event);
    expect(events[0]!.data.message).toMatchObject({
      type: "message",
      role: "assistant",
      model: "full",
      content: [],
      stop_reason: null,
    });
    expect((events[0]!.data.message as { id: string }).id).toMatch(/^msg_[A-Za-z0-9]+$/);
    const starts = events.filter((e) => e.event === "content_block_start").map((e) => e.data);
    expect(starts.map((s) => s.index)).toEqual([0, 1, 2, 3]);
    expect(starts.map((s) => (s.content_block as { type: string }).type)).toEqual([
      "thinking",
      "text",
      "tool_use",
      "tool_use",
    ]);
    expect((starts[2]!.content_block as { id: string }).id).toMatch(/^toolu_[A-Za-z0-9]+$/);
    const deltas = events.filter((e) => e.event === "content_block_delta").map((e) => e.data.delta);
    expect(deltas).toEqual([
      { type: "thinking_delta", thinking: "Let me think." },
      { type: "text_delta", text: "Checking both." },
      { type: "input_json_delta", partial_json: '{"a":1,"b":2}' },
      { type: "input_json_delta", partial_json: '{"a":3,"b":4}' },
    ]);
    expect(events.at(-2)!.data).toEqual({
      type: "message_delta",
      delta: { stop_reason: "tool_use", stop_sequence: null },
      usage: {
        input_tokens: 7,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 11,
      },
    });
  });

  it("the anthropic client's messages.stream assembles the same message as messages.create returns", async () => {
    const params = {
      model: "full",
      max_tokens: 100,
      messages: [{ role: "user" as const, content: "go" }],
      tools: [MESSAGES_ADD],
    };
    const streamed = await anthropic.messages.stream(params).finalMessage();
    const whole = await anthropic.messages.create(params);
    const shape = (m: Anthropic.Message) =>
      m.content.map((b) =>
        b.type === "tool_use"
          ? { type: b.type, name: b.name, input: b.input }
          : b.type === "text"
            ? b
            : b.type,
      );
    expect(shape(streamed)).toEqual(shape(whole));
    expect(shape(whole)).toEqual(
      [
        "thinking",
        { type: "text", text: "Checking both.", citations: undefined },
        { type: "tool_use", name: "add", input: { a: 1, b: 2 } },
        { type: "tool_use", name: "add", input: { a: 3, b: 4 } },
      ].map((b) => (typeof b === "object" && b.type === "text" ? { type: "text", text: b.text } : b)),
    );
    expect(streamed.stop_reason).toBe("tool_use");
    expect(whole.stop_reason).toBe("tool_use");
    expect(whole.usage).toMatchObject({ input_tokens: 7, output_tokens: 11 });
  });

  it.each([
    ["long", "max_tokens", null],
    ["stopped", "stop_sequence", "three"],
    ["plain", "end_turn", null],
  ])("%s: stop_reason %s, whole and streamed", async (model, reason, sequence) => {
    const params = { model, max_tokens: 5, messages: [{ role: "user" as const, content: "go" }] };
    for (const message of [
      await anthropic.messages.create(params),
      await anthropic.messages.stream(params).finalMessage(),
    ]) {
      expect(message.stop_reason).toBe(reason);
      expect(message.stop_sequence).toBe(sequence);
    }
  });

  it("a model that fails after the headers ends the stream with an error event, its text kept", async () => {
    const events = await sse("/v1/messages", {
      model: "failing",
      max_tokens: 100,
      messages: [{ role: "user", content: "go" }],
    });
    expect(events.at(-1)).toEqual({
      event: "error",
      data: {
        type: "error",
        error: { type: "api_error", message: expect.stringMatching(/GPU caught fire/) },
      },
    });
    expect(events.some((e) => (e.data.delta as { text?: string })?.text === "Half an ans")).toBe(true);
    await expect(
      anthropic.messages
        .stream({ model: "failing", max_tokens: 10, messages: [{ role: "user", content: "go" }] })
        .finalMessage(),
    ).rejects.toThrow(/GPU caught fire/);
  });
});

const ADD_CALL = { type: "function_call", call_id: "call_1", name: "add", arguments: '{"a":1,"b":2}' };

/** [path, body, the field the error names (OpenAI's `param`) or a pattern of its message (Anthropic's has no param)]. */
const BAD: Array<[string, string, unknown, RegExp | string | null]> = [
  ["responses: not JSON", "/v1/responses", "{", /not valid JSON/],
  ["responses: no model", "/v1/responses", { input: "hi" }, "model"],
  ["responses: unknown model", "/v1/responses", { model: "nope", input: "hi" }, "model"],
  ["responses: no input", "/v1/responses", { model: "plain" }, "input"],
  [
    "responses: an image",
    "/v1/responses",
    { model: "plain", input: [{ role: "user", content: [{ type: "input_image", image_url: "x" }] }] },
    "input[0].content[0]",
  ],
  [
    "responses: a hosted tool",
    "/v1/responses",
    { model: "plain", input: "hi", tools: [{ type: "web_search" }] },
    "tools[0].type",
  ],
  [
    "responses: a bad tool name",
    "/v1/responses",
    { model: "plain", input: "hi", tools: [{ type: "function", name: "has space" }] },
    "tools[0].name",
  ],
  [
    "responses: tool_choice names no tool",
    "/v1/responses",
    { model: "plain", input: "hi", tools: [RESPONSES_ADD], tool_choice: { type: "function", name: "mul" } },
    "tool_choice.name",
  ],
  // tool_choice's allowed_tools: one reader for both APIs, each naming the field in its own API's nesting.
  ...(
    [
      [
        "responses",
        "/v1/responses",
        { input: "hi", tools: [RESPONSES_ADD] },
        (c: object) => c,
        ".name",
        (n: string) => ({ name: n }),
      ],
      [
        "chat",
        "/v1/chat/completions",
        {
          messages: [{ role: "user", content: "hi" }],
          tools: [{ type: "function", function: { name: "add", parameters: ADD_SCHEMA } }],
        },
        (c: object) => ({ allowed_tools: c }),
        ".function.name",
        (n: string) => ({ type: "function", function: { name: n } }),
      ],
    ] as const
  ).flatMap(([api, path, base, nest, nameAt, listed]): Array<[string, string, unknown, string]> => {
    const at = api === "chat" ? "tool_choice.allowed_tools" : "tool_choice";
    const choice = (allowed: object) => ({
      ...base,
      model: "plain",
      tool_choice: { type: "allowed_tools", ...nest(allowed) },
    });
    return [
      [`${api}: allowed_tools listing none`, path, choice({ mode: "auto", tools: [] }), `${at}.tools`],
      [
        `${api}: allowed_tools naming no tool`,
        path,
        choice({ mode: "auto", tools: [listed("mul")] }),
        `${at}.tools[0]${nameAt}`,
      ],
      [
        `${api}: allowed_tools mode "sometimes"`,
        path,
        choice({ mode: "sometimes", tools: [listed("add")] }),
        `${at}.mode`,
      ],
    ];
  }),
  [
    "responses: an output for no call",
    "/v1/responses",
    { model: "plain", input: [{ type: "function_call_output", call_id: "call_9", output: "3" }] },
    "input[0].call_id",
  ],
  [
    "responses: call arguments that are not JSON",
    "/v1/responses",
    { model: "plain", input: [{ ...ADD_CALL, arguments: "[1, 2]" }] },
    "input[0].arguments",
  ],
  [
    "responses: previous_response_id",
    "/v1/responses",
    { model: "plain", input: "hi", previous_response_id: "resp_123" },
    "previous_response_id",
  ],
  [
    "responses: text.format without a name",
    "/v1/responses",
    { model: "plain", input: "hi", text: { format: { type: "json_schema", schema: {} } } },
    "text.format.name",
  ],
  [
    "responses: temperature 3",
    "/v1/responses",
    { model: "plain", input: "hi", temperature: 3 },
    "temperature",
  ],
  [
    "responses: max_output_tokens 0",
    "/v1/responses",
    { model: "plain", input: "hi", max_output_tokens: 0 },
    "max_output_tokens",
  ],
  ["messages: not JSON", "/v1/messages", "{", /not valid JSON/],
  [
    "messages: no max_tokens",
    "/v1/messages",
    { model: "plain", messages: [{ role: "user", content: "hi" }] },
    /max_tokens/,
  ],
  [
    "messages: unknown model",
    "/v1/messages",
    { model: "nope", max_tokens: 5, messages: [{ role: "user", content: "hi" }] },
    /nope/,
  ],
  ["messages: no messages", "/v1/messages", { model: "plain", max_tokens: 5, messages: [] }, /messages/],
  [
    "messages: a bad role",
    "/v1/messages",
    { model: "plain", max_tokens: 5, messages: [{ role: "system", content: "hi" }] },
    /role/,
  ],
  [
    "messages: an image",
    "/v1/messages",
    { model: "plain", max_tokens: 5, messages: [{ role: "user", content: [{ type: "image", source: {} }] }] },
    /image/,
  ],
  [
    "messages: a tool_result for no tool_use",
    "/v1/messages",
    {
      model: "plain",
      max_tokens: 5,
      messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_9", content: "3" }] }],
    },
    /corresponding tool_use/,
  ],
  [
    "messages: a server tool",
    "/v1/messages",
    {
      model: "plain",
      max_tokens: 5,
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "web_search_20250305", name: "web_search" }],
    },
    /server tool/,
  ],
  [
    "messages: a tool without input_schema",
    "/v1/messages",
    { model: "plain", max_tokens: 5, messages: [{ role: "user", content: "hi" }], tools: [{ name: "add" }] },
    /input_schema/,
  ],
  [
    "messages: tool_choice any without tools",
    "/v1/messages",
    {
      model: "plain",
      max_tokens: 5,
      messages: [{ role: "user", content: "hi" }],
      tool_choice: { type: "any" },
    },
    /at least one tool/,
  ],
  [
    "messages: temperature 1.5",
    "/v1/messages",
    { model: "plain", max_tokens: 5, messages: [{ role: "user", content: "hi" }], temperature: 1.5 },
    /temperature/,
  ],
  [
    "messages: stop_sequences not strings",
    "/v1/messages",
    { model: "plain", max_tokens: 5, messages: [{ role: "user", content: "hi" }], stop_sequences: [1] },
    /stop_sequences/,
  ],
];

describe("bad input: a 400 (404 for an unknown model) in each API's own error shape, and the model is never asked", () => {
  it.each(BAD)("%s", async (_name, path, body, names) => {
    const before = requests.length;
    const res = await fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    });
    const unknownModel = JSON.stringify(body).includes('"nope"');
    expect(res.status).toBe(unknownModel ? 404 : 400);
    const error = (await res.json()) as Record<string, unknown>;
    if (path === "/v1/messages") {
      expect(error).toEqual({
        type: "error",
        error: {
          type: unknownModel ? "not_found_error" : "invalid_request_error",
          message: expect.any(String),
        },
      });
      expect((error.error as { message: string }).message).toMatch(names as RegExp);
    } else {
      expect(Object.keys(error)).toEqual(["error"]);
      const detail = error.error as { message: string; type: string; param: string | null };
      expect(detail.type).toBe("invalid_request_error");
      if (names instanceof RegExp) expect(detail.message).toMatch(names);
      else expect(detail.param).toBe(names);
    }
    expect(requests.length).toBe(before);
  });

  it("the official clients raise their typed errors with the message", async () => {
    await expect(
      openai.responses.create({ model: "plain", input: "hi", previous_response_id: "resp_1" }),
    ).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/keeps no responses/) });
    const error = await anthropic.messages
      .create({
        model: "plain",
        max_tokens: 5,
        messages: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "x", content: "1" }] }],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect((error as Error).message).toMatch(/corresponding tool_use/);
    expect(await (await fetch(`${server.url}/v1/responses/resp_123`)).json()).toMatchObject({
      error: { message: expect.stringMatching(/keeps no responses/) },
    });
  });
});
