import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { GbnfJsonSchema } from "node-llama-cpp";
import OpenAI from "openai";
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionFunctionTool,
} from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../../../src/models/create-model.js";
import { writeTestModel } from "../../../src/models/gguf/make-test-model.js";
import { createLlamaModel } from "../../../src/models/llama/index.js";
import { ModelCatalog } from "../../../src/server/model-catalog.js";
import { type RunningServer, startServer } from "../../../src/server/start-server.js";
import { ToolExecutor } from "../../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { validateToolInput } from "../../../src/tools/validate-tool-input.js";
import {
  type CompletionRequestBody,
  type LlamaServer,
  startLlamaOpenAIServer,
} from "../../models/helpers/llama-openai-server.js";

// /v1's sampling and output settings, end to end with real parts: `startServer` + the official openai client, over
// node-llama-cpp on a generated tiny GGUF (random weights: the tests check determinism, cuts and well-formedness,
// never sense), and over /v1/completions and /v1/chat/completions servers in this test backed by the same GGUF.
const dir = mkdtempSync(path.join(tmpdir(), "tb-v1-sampling-"));
const gguf = path.join(dir, "tiny.gguf");
writeTestModel(gguf, { seed: 7 });

const LOOKUP: ChatCompletionFunctionTool = {
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
};

/** The answer format the tests ask for: bounded strings and closed sets, so a random model always finishes it. */
const ANSWER_SCHEMA: { type: "object"; [key: string]: unknown } = {
  type: "object",
  properties: {
    name: { type: "string", maxLength: 10 },
    size: { enum: ["small", "medium", "large"] },
    ok: { type: "boolean" },
  },
  required: ["name", "size", "ok"],
  additionalProperties: false,
};

/** The hermes call the completions server writes when tools are offered (body under grammar, from the model). */
function plan(body: CompletionRequestBody) {
  if (!body.prompt.includes("<tools>")) return undefined;
  const schema = {
    type: "object",
    properties: {
      name: { const: "lookup" },
      arguments: {
        type: "object",
        properties: { word: { enum: ["a{b}", 'say "hi"'] } },
        required: ["word"],
      },
    },
    required: ["name", "arguments"],
  } as GbnfJsonSchema;
  return { prefix: "Sure.\n<tool_call>\n", schema, suffix: "\n</tool_call>" };
}

let backend: LlamaServer;
let server: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  backend = await startLlamaOpenAIServer({ modelPath: gguf, completionPlan: plan });
  const models = new ModelCatalog({
    "tiny-text": {
      create: async () => createLlamaModel({ modelPath: gguf, mode: "text", protocol: "hermes", threads: 1 }),
    },
    "tiny-native": { create: async () => createLlamaModel({ modelPath: gguf, mode: "native", threads: 1 }) },
    "text-only": {
      create: () =>
        createModel({
          backend: "completions",
          baseURL: backend.baseURL,
          model: "tiny",
          chatTemplate: { gguf },
          protocol: "hermes",
          maxTokens: 200,
        }),
    },
    chat: {
      create: () =>
        createModel({
          backend: "openai",
          baseURL: backend.baseURL,
          model: "tiny",
          apiKey: "x",
          maxTokens: 16,
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

const ask = (model: string, extra: Partial<ChatCompletionCreateParamsNonStreaming> = {}) =>
  client.chat.completions.create({
    model,
    messages: [{ role: "user", content: "Tell me something." }],
    max_tokens: 32,
    ...extra,
  });

/**
 * Penalties that count newlines too, as OpenAI's do: without them this random model falls into repeating one token at
 * any temperature (its tied embeddings make the last token the likeliest next one), and every seed looks alike.
 */
const VARIED = { presence_penalty: 2, frequency_penalty: 2 } as const;

/** A stop string that first occurs a little way into `text`: the third character not seen before it. */
function stopInside(text: string): { stop: string; before: string } {
  const seen = new Set<string>();
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (seen.has(char)) continue;
    seen.add(char);
    if (seen.size === 3) return { stop: char, before: text.slice(0, i) };
  }
  throw new Error(`too few distinct characters in ${JSON.stringify(text)}`);
}

describe.each(["tiny-text", "tiny-native"])("/v1 on a local GGUF (%s)", (model) => {
  it("the same seed at temperature 1 gives the same answer twice; another seed a different one", async () => {
    const first = await ask(model, { ...VARIED, temperature: 1, seed: 11 });
    const again = await ask(model, { ...VARIED, temperature: 1, seed: 11 });
    const other = await ask(model, { ...VARIED, temperature: 1, seed: 12 });
    const text = first.choices[0]!.message.content;
    expect(text?.length).toBeGreaterThan(4);
    expect(again.choices[0]!.message.content).toBe(text);
    expect(other.choices[0]!.message.content).not.toBe(text);
    // OpenAI takes any integer as a seed: a negative one is as repeatable.
    const negative = await ask(model, { ...VARIED, temperature: 1, seed: -5 });
    expect((await ask(model, { ...VARIED, temperature: 1, seed: -5 })).choices[0]!.message.content).toBe(
      negative.choices[0]!.message.content,
    );
  });

  it("presence/frequency penalties reach the sampler: without them the model only repeats itself", async () => {
    const plain = (await ask(model, { temperature: 1, seed: 11 })).choices[0]!.message.content!;
    const penalized = (await ask(model, { ...VARIED, temperature: 1, seed: 11 })).choices[0]!.message
      .content!;
    expect(new Set(plain).size).toBe(1);
    expect(new Set(penalized).size).toBeGreaterThan(2);
  });

  it("stop ends the text before the stop string with finish_reason stop, streamed or not", async () => {
    const full = (await ask(model, { ...VARIED, temperature: 1, seed: 11 })).choices[0]!.message.content!;
    const { stop, before } = stopInside(full);
    const cut = await ask(model, { ...VARIED, temperature: 1, seed: 11, stop: [stop, "never-appears"] });
    expect(cut.choices[0]!.message.content).toBe(before);
    expect(cut.choices[0]!.finish_reason).toBe("stop");
    expect(cut.usage!.completion_tokens).toBeGreaterThan(0);

    const stream = client.chat.completions.stream({
      model,
      messages: [{ role: "user", content: "Tell me something." }],
      max_tokens: 32,
      ...VARIED,
      temperature: 1,
      seed: 11,
      stop,
    });
    const final = await stream.finalChatCompletion();
    expect(final.choices[0]!.message.content).toBe(before);
    expect(final.choices[0]!.finish_reason).toBe("stop");
  });

  it("response_format json_schema: the answer parses and validates against the schema", async () => {
    for (const extra of [{}, { tools: [LOOKUP], tool_choice: "none" as const }]) {
      const response = await ask(model, {
        ...extra,
        temperature: 1,
        seed: 3,
        max_tokens: 96,
        response_format: { type: "json_schema", json_schema: { name: "answer", schema: ANSWER_SCHEMA } },
      });
      const choice = response.choices[0]!;
      expect(choice.finish_reason).toBe("stop");
      const answer: unknown = JSON.parse(choice.message.content!);
      expect(validateToolInput({ name: "answer", inputSchema: ANSWER_SCHEMA }, answer).ok).toBe(true);
    }
  });

  it("a stop string that occurs in a call's markup and arguments does not cut the call", async () => {
    const response = await ask(model, {
      tools: [LOOKUP],
      tool_choice: "required",
      max_tokens: 300,
      stop: ["{", '"', "<tool_call>", "}"],
    });
    const choice = response.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls![0]!;
    if (call.type !== "function") throw new Error("not a function call");
    expect(call.function.name).toBe("lookup");
    const args: unknown = JSON.parse(call.function.arguments);
    expect(
      validateToolInput(
        { name: "lookup", inputSchema: LOOKUP.function.parameters as { type: "object" } },
        args,
      ).ok,
    ).toBe(true);
  });
});

describe("/v1 over a text-only /v1/completions backend", () => {
  it("temperature, top_p, seed, penalties and stop (merged with the template's) arrive in the backend's body", async () => {
    const response = await ask("text-only", {
      temperature: 0.5,
      top_p: 0.9,
      seed: 42,
      presence_penalty: 0.5,
      frequency_penalty: -0.25,
      stop: ["zz"],
    });
    expect(response.choices[0]!.finish_reason).toMatch(/stop|length/);
    const body = backend.completionRequests.at(-1) as CompletionRequestBody & Record<string, unknown>;
    expect(body).toMatchObject({
      temperature: 0.5,
      top_p: 0.9,
      seed: 42,
      presence_penalty: 0.5,
      frequency_penalty: -0.25,
    });
    expect(body.stop).toEqual(expect.arrayContaining(["zz", "<|im_end|>"]));
  });

  it("with tools offered, stop strings stay out of the backend's body and a call containing them comes back whole", async () => {
    const response = await ask("text-only", { tools: [LOOKUP], stop: ["{", '"', "}"], max_tokens: 200 });
    const choice = response.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls![0]!;
    if (call.type !== "function") throw new Error("not a function call");
    expect(["a{b}", 'say "hi"']).toContain((JSON.parse(call.function.arguments) as { word: string }).word);
    expect(choice.message.content?.trim()).toBe("Sure.");
    expect(backend.completionRequests.at(-1)!.stop).not.toContain("{");
  });

  it("response_format json answers 400 naming response_format: the backend has no way to hold its output", async () => {
    const error = await ask("text-only", { response_format: { type: "json_object" } }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe("response_format");
    expect((error as Error).message).toMatch(/cannot hold its output to JSON/);
  });
});

describe("/v1 over an OpenAI-compatible chat backend", () => {
  it("passes every setting through, response_format included", async () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    await ask("chat", {
      temperature: 0.2,
      top_p: 0.3,
      seed: 9,
      stop: "END",
      presence_penalty: 1,
      frequency_penalty: 2,
      response_format: { type: "json_schema", json_schema: { name: "out", schema, strict: true } },
    });
    expect(backend.chatRequests.at(-1)).toMatchObject({
      temperature: 0.2,
      top_p: 0.3,
      seed: 9,
      stop: ["END"],
      presence_penalty: 1,
      frequency_penalty: 2,
      response_format: { type: "json_schema", json_schema: { name: "out", schema, strict: true } },
    });
  });
});

describe("/v1 validation of sampling settings", () => {
  it.each([
    [{ temperature: 3 }, "temperature"],
    [{ top_p: -1 }, "top_p"],
    [{ seed: 0.5 }, "seed"],
    [{ stop: ["a", "b", "c", "d", "e"] }, "stop"],
    [{ logprobs: true }, "logprobs"],
    [{ n: 2 }, "n"],
  ])("%j → 400 with param %s, and nothing reaches a backend", async (extra, param) => {
    const before = backend.chatRequests.length;
    const error = await ask("chat", extra as Partial<ChatCompletionCreateParamsNonStreaming>).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    expect(backend.chatRequests.length).toBe(before);
  });
});
