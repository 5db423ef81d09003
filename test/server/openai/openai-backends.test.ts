import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import Anthropic from "@anthropic-ai/sdk";
import { Agent, tool as agentTool, OpenAIProvider, Runner } from "@openai/agents";
import type { GbnfJsonSchema } from "node-llama-cpp";
import OpenAI from "openai";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createModel } from "../../../src/models/create-model.js";
import { writeTestModel } from "../../../src/models/gguf/make-test-model.js";
import { ModelCatalog } from "../../../src/server/model-catalog.js";
import { type RunningServer, startServer } from "../../../src/server/start-server.js";
import { ToolExecutor } from "../../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../../src/tools/tool-registry.js";
import { validateToolInput } from "../../../src/tools/validate-tool-input.js";
import { CALCULATOR, calcArguments, calcCall, EXPRESSIONS } from "../../models/helpers/calculator-call.js";
import {
  type CompletionRequestBody,
  type LlamaServer,
  startLlamaOpenAIServer,
} from "../../models/helpers/llama-openai-server.js";

// /v1 in front of other backends: a text-only /v1/completions server and an OpenAI chat server, both a small HTTP
// server in this test whose tokens come from node-llama-cpp on a generated GGUF (test/models/helpers).

/** The text model writes a hermes call (markers by the plan, the JSON body generated under grammar); with PARALLEL, a second call after it. */
function plan(body: CompletionRequestBody) {
  // After a result (a <tool_response> block) the model answers in text, a short one that ends.
  if (body.prompt.includes("<tool_response>"))
    return { prefix: "The answer is ", schema: { enum: ["4", "2"] } as GbnfJsonSchema };
  if (!body.prompt.includes("<tools>")) return undefined;
  if (/"arguments":\s?$/.test(body.prompt))
    return {
      schema: calcArguments,
      suffix: "}\n</tool_call>",
    };
  const second = body.prompt.includes("PARALLEL")
    ? '\n<tool_call>\n{"name": "calculator", "arguments": {"expression": "1 + 1"}}\n</tool_call>'
    : "";
  return { prefix: "<tool_call>\n", schema: calcCall, suffix: `\n</tool_call>${second}` };
}

const ADD: ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "add",
    description: "Add",
    parameters: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
};

const dir = mkdtempSync(path.join(tmpdir(), "tb-v1-backends-"));
const gguf = path.join(dir, "tiny.gguf");
writeTestModel(gguf, { seed: 7 });
let backend: LlamaServer;
let server: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  backend = await startLlamaOpenAIServer({
    modelPath: gguf,
    completionPlan: plan,
    // The chat server calls every offered tool at once when asked to: parallel calls, streamed in fragments.
    chatPlan: (body) =>
      body.tools?.length && body.tool_choice !== "none"
        ? { calls: body.tools.map((t) => ({ name: t.function.name })) }
        : {},
  });
  const models = new ModelCatalog({
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
      ownedBy: "completions",
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
      ownedBy: "openai",
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

const chunksOf = async (res: Response) =>
  (await res.text())
    .split("\n\n")
    .filter((e) => e && e !== "data: [DONE]")
    .map(
      (e) =>
        JSON.parse(e.replace(/^data: /, "")) as {
          choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>;
        },
    );

describe("/v1/chat/completions over a text-only /v1/completions backend", () => {
  it("returns real tool_calls parsed from the generated text, arguments valid for the request's schema", async () => {
    const response = await client.chat.completions.create({
      model: "text-only",
      messages: [{ role: "user", content: "What is a small sum?" }],
      tools: [CALCULATOR],
    });
    const choice = response.choices[0]!;
    expect(choice.finish_reason).toBe("tool_calls");
    const call = choice.message.tool_calls![0]!;
    expect(call.type === "function" && call.function.name).toBe("calculator");
    const args = JSON.parse(call.type === "function" ? call.function.arguments : "") as {
      expression: string;
    };
    expect(EXPRESSIONS).toContain(args.expression);
    // The backend was given a text prompt with the hermes catalogue, not `tools`.
    expect(backend.completionRequests.at(-1)?.prompt).toContain("<tools>");
  });

  it("parallel calls come back well-formed: indexes 0 and 1, contiguous, each header then its whole arguments", async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        model: "text-only",
        messages: [{ role: "user", content: "PARALLEL sums" }],
        tools: [CALCULATOR],
        stream: true,
      }),
    });
    const calls = (await chunksOf(res)).flatMap(
      (c) => (c.choices[0]?.delta.tool_calls as Array<Record<string, unknown>>) ?? [],
    );
    expect(calls.map((c) => c.index)).toEqual([0, 0, 1, 1]);
    expect(calls[0]).toMatchObject({ type: "function", function: { name: "calculator", arguments: "" } });
    expect(calls[2]).toMatchObject({ type: "function", function: { name: "calculator", arguments: "" } });
    expect(calls[0]!.id).not.toBe(calls[2]!.id);
    expect(JSON.parse((calls[3]!.function as { arguments: string }).arguments)).toEqual({
      expression: "1 + 1",
    });
    // parallel_tool_calls: false keeps the first call only.
    const single = await client.chat.completions.create({
      model: "text-only",
      messages: [{ role: "user", content: "PARALLEL sums" }],
      tools: [CALCULATOR],
      parallel_tool_calls: false,
    });
    expect(single.choices[0]!.message.tool_calls).toHaveLength(1);
  });
});

describe("/v1/responses and /v1/messages over a text-only /v1/completions backend: the case no other server covers", () => {
  const fn = CALCULATOR.function;
  it("responses.create: a function_call parsed from the text, its output in, a text answer out", async () => {
    const tools = [{ type: "function" as const, name: fn.name, parameters: fn.parameters!, strict: false }];
    const first = await client.responses.create({ model: "text-only", input: "What is a small sum?", tools });
    const call = first.output.find((o) => o.type === "function_call");
    if (call?.type !== "function_call") throw new Error(JSON.stringify(first.output));
    expect(EXPRESSIONS).toContain((JSON.parse(call.arguments) as { expression: string }).expression);
    expect(backend.completionRequests.at(-1)?.prompt).toContain("<tools>");
    const second = await client.responses
      .stream({
        model: "text-only",
        input: [
          { role: "user", content: "What is a small sum?" },
          call,
          { type: "function_call_output", call_id: call.call_id, output: "4" },
        ],
        tools,
        max_output_tokens: 8,
      })
      .finalResponse();
    // The result reached the backend in the protocol's words; the answer is text.
    expect(backend.completionRequests.at(-1)?.prompt).toMatch(/<tool_response>\s*4\s*<\/tool_response>/);
    expect(second.output.map((o) => o.type)).toEqual(["message"]);
    expect(second.output_text).toMatch(/^The answer is "[42]"$/);
  });

  it.each([true, false])(
    "the Agents SDK (Responses mode: %s) runs its calculator on the parsed call and finishes",
    async (useResponses) => {
      const expressions: string[] = [];
      const agent = new Agent({
        name: "calc",
        model: "text-only",
        tools: [
          agentTool({
            name: fn.name,
            description: fn.description ?? "",
            parameters: fn.parameters as never,
            strict: false,
            execute: async (input: unknown) => {
              expressions.push((input as { expression: string }).expression);
              return "4";
            },
          }),
        ],
      });
      const runner = new Runner({
        modelProvider: new OpenAIProvider({ baseURL: `${server.url}/v1`, apiKey: "unused", useResponses }),
        tracingDisabled: true,
      });
      const result = await runner.run(agent, "What is a small sum?");
      expect(expressions).toHaveLength(1);
      expect(EXPRESSIONS).toContain(expressions[0]);
      expect(result.finalOutput).toMatch(/^The answer is "[42]"$/);
    },
  );

  it("messages.stream: a tool_use block parsed from the text, its tool_result in, a text answer out", async () => {
    const anthropic = new Anthropic({ baseURL: server.url, apiKey: "unused", maxRetries: 0 });
    const tools = [{ name: fn.name, input_schema: fn.parameters as Anthropic.Tool.InputSchema }];
    const first = await anthropic.messages
      .stream({
        model: "text-only",
        max_tokens: 64,
        messages: [{ role: "user", content: "PARALLEL sums" }],
        tools,
      })
      .finalMessage();
    expect(first.stop_reason).toBe("tool_use");
    const uses = first.content.filter((b) => b.type === "tool_use");
    expect(uses.map((u) => u.type === "tool_use" && u.input)).toEqual([
      { expression: expect.any(String) },
      { expression: "1 + 1" },
    ]);
    const second = await anthropic.messages.create({
      model: "text-only",
      max_tokens: 8,
      messages: [
        { role: "user", content: "PARALLEL sums" },
        { role: "assistant", content: first.content },
        {
          role: "user",
          content: uses.map((u) => ({
            type: "tool_result" as const,
            tool_use_id: u.type === "tool_use" ? u.id : "",
            content: "2",
          })),
        },
      ],
      tools,
    });
    expect(second.content.map((b) => b.type)).toEqual(["text"]);
    expect(second.stop_reason).toBe("end_turn");
  });
});

describe("/v1/chat/completions over an OpenAI chat backend that streams parallel calls in fragments", () => {
  it("re-emits them one call at a time, arguments whole, and the openai client assembles valid calls", async () => {
    const stream = client.chat.completions.stream({
      model: "chat",
      messages: [{ role: "user", content: "Both." }],
      tools: [CALCULATOR, ADD],
      stream_options: { include_usage: true },
    });
    const final = await stream.finalChatCompletion();
    const calls = final.choices[0]!.message.tool_calls!;
    expect(calls.map((c) => c.type === "function" && c.function.name)).toEqual(["calculator", "add"]);
    for (const call of calls) {
      if (call.type !== "function") throw new Error("not a function call");
      expect(call.id).toMatch(/^call_[A-Za-z0-9]+$/);
      const tool = [CALCULATOR, ADD].find((t) => t.function.name === call.function.name)!;
      expect(
        validateToolInput(
          { name: tool.function.name, inputSchema: tool.function.parameters as { type: "object" } },
          JSON.parse(call.function.arguments),
        ).ok,
      ).toBe(true);
    }
    // The backend sent many argument fragments; /v1 sends one per call.
    expect(backend.streams.at(-1)!.filter((d) => d.includes('"arguments"')).length).toBeGreaterThan(4);
  });
});
