import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import type { AgentMessage } from "../../src/core/agent-message.js";
import { loadChatTemplate } from "../../src/models/chat-template/load-chat-template.js";
import { createTextCompletionModel } from "../../src/models/completions/text-completion-model.js";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { MarkupStrippedError } from "../../src/models/model-errors.js";
import { OpenAIChatModel } from "../../src/models/openai/openai-chat-model.js";
import { createCalculatorTool } from "../../src/tools/builtin/calculator.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { validateToolInput } from "../../src/tools/validate-tool-input.js";
import { calcArguments, calcCall, EXPRESSIONS } from "./helpers/calculator-call.js";
import { callsOf, collectEvents, textOf } from "./helpers/collect-events.js";
import {
  type CompletionPlan,
  type CompletionRequestBody,
  type LlamaServer,
  type LlamaServerOptions,
  startLlamaOpenAIServer,
} from "./helpers/llama-openai-server.js";
import { createArithmeticTools } from "./helpers/test-tools.js";

/**
 * A model that calls the calculator in its protocol's format when the prompt has no tool result yet, then answers:
 * the server adds the format's markers and the call body comes from grammar-bound generation.
 */
function plan(body: CompletionRequestBody): CompletionPlan | undefined {
  const p = body.prompt;
  if (/"arguments":\s?$/.test(p)) return { schema: calcArguments, suffix: "}\n</tool_call>" };
  if (p.includes("<tool_response>") || p.includes("<tool_result")) return undefined;
  if (p.includes("To use a tool, respond with:"))
    return { prefix: "<tool>\n", schema: calcCall, suffix: "\n</tool>" };
  if (p.includes("<tools>")) return { prefix: "<tool_call>\n", schema: calcCall, suffix: "\n</tool_call>" };
  if (p.includes("STOP-TEST")) return { prefix: "Partial answer <tool_response> hallucinated result" };
  return undefined;
}

let server: LlamaServer;
let gguf: string;
const serverOptions: LlamaServerOptions = { modelPath: "", completionPlan: plan };

beforeAll(async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "tb-http-"));
  gguf = path.join(dir, "tiny.gguf");
  writeTestModel(gguf, { seed: 7 });
  serverOptions.modelPath = gguf;
  server = await startLlamaOpenAIServer(serverOptions);
});
afterAll(async () => {
  await server?.close();
});

const ask: AgentMessage[] = [{ role: "user", content: "Use a tool." }];

describe("openai backend against node-llama-cpp over real HTTP + SSE", () => {
  it("streams generated text exactly as the server sent it", async () => {
    const model = new OpenAIChatModel({ model: "tiny", baseURL: server.baseURL, maxTokens: 20 });
    const events = await collectEvents(model, { messages: ask });
    const sent = (server.streams.at(-1) ?? [])
      .filter((d) => d !== "[DONE]")
      .map((d) => JSON.parse(d).choices[0]?.delta?.content ?? "")
      .join("");
    expect(sent.length).toBeGreaterThan(0);
    expect(textOf(events)).toBe(sent);
    expect(events.at(-1)?.type).toBe("finish");
  });

  it("a named tool_choice yields a schema-valid call whose arguments streamed token by token", async () => {
    const model = new OpenAIChatModel({ model: "tiny", baseURL: server.baseURL });
    const { registry } = createArithmeticTools();
    const tools = registry.definitions().map((d) => d.tool);
    const events = await collectEvents(model, { messages: ask, tools, toolChoice: { name: "add" } });
    const [call] = callsOf(events);
    expect(call?.name).toBe("add");
    expect(validateToolInput(tools[0] as (typeof tools)[0], call?.arguments).ok).toBe(true);
    expect(events.filter((e) => e.type === "call-args-delta").length).toBeGreaterThan(3);
    expect(server.chatRequests.at(-1)?.tool_choice).toEqual({ type: "function", function: { name: "add" } });
  });

  it("drives a full agent run: a generated call runs the registry tool, its result goes back, the model answers", async () => {
    const model = new OpenAIChatModel({ model: "tiny", baseURL: server.baseURL, maxTokens: 16 });
    const { registry, executed } = createArithmeticTools();
    const agent = createAgent({ model, tools: registry });
    const before = server.chatRequests.length;
    const view = await agent.run("Add two numbers.").result;
    expect(view.status).toBe("finished");
    // Random weights rarely write an end-of-turn token: the answer ends at max_tokens or at EOS.
    expect(["final-answer", "length"]).toContain(view.stopReason);
    const answered = (server.streams.at(-1) ?? [])
      .filter((d) => d !== "[DONE]")
      .map((d) => JSON.parse(d).choices[0]?.delta?.content ?? "")
      .join("");
    expect(view.answer).toBe(answered.trim());
    expect(executed).toHaveLength(1);
    const [second] = server.chatRequests.slice(before + 1);
    const toolMessage = second?.messages.find((m) => m.role === "tool") as
      | { tool_call_id: string; content: string }
      | undefined;
    expect(toolMessage?.tool_call_id).toBe(view.steps[0]?.calls[0]?.id);
    const name = executed[0]?.name;
    expect(toolMessage?.content).toBe(
      name === "add" ? String(Number(executed[0]?.args.a) + Number(executed[0]?.args.b)) : "ok",
    );
    await agent.close();
  });
});

describe("completions backend against node-llama-cpp over real HTTP + SSE", () => {
  it("renders the template + hermes catalogue, parses the streamed <tool_call>, and runs the real calculator in an agent run", async () => {
    const model = await createTextCompletionModel({
      baseURL: server.baseURL,
      model: "tiny",
      chatTemplate: { gguf },
      protocol: "hermes",
      maxTokens: 64,
    });
    const registry = new ToolRegistry();
    registry.register(createCalculatorTool());
    const agent = createAgent({ model, tools: registry, system: "You are terse." });
    const before = server.completionRequests.length;
    const view = await agent.run("What is a small sum?").result;
    expect(view.status).toBe("finished");
    const call = view.steps[0]?.calls[0];
    expect(call?.name).toBe("calculator");
    expect(EXPRESSIONS).toContain(call?.arguments.expression);
    const expected = { "2 + 2": "4", "6 * 7": "42", "10 / 4": "2.5" }[call?.arguments.expression as string];
    const [first, second] = server.completionRequests.slice(before);
    expect(first?.prompt.startsWith("<|im_start|>system\nYou are terse.\n\n# Tools")).toBe(true);
    expect(first?.prompt.endsWith("<|im_start|>assistant\n")).toBe(true);
    expect(first?.stop).toEqual(["<tool_response>", "<|im_end|>"]);
    expect(first?.max_tokens).toBe(64);
    // The call and its real result are written back in the protocol's format.
    expect(second?.prompt).toContain(
      `<|im_start|>assistant\n<tool_call>\n{"name":"calculator","arguments":{"expression":"${call?.arguments.expression}"}}\n</tool_call><|im_end|>`,
    );
    expect(second?.prompt).toContain(
      `<|im_start|>user\n<tool_response>\n${expected}\n</tool_response><|im_end|>\n<|im_start|>assistant\n`,
    );
    await agent.close();
  });

  it("forces a named call by opening it in the prompt; the server continues the arguments", async () => {
    const model = await createTextCompletionModel({
      baseURL: server.baseURL,
      model: "tiny",
      chatTemplate: { gguf },
      protocol: "hermes",
    });
    const tools = [createCalculatorTool().tool];
    const events = await collectEvents(model, { messages: ask, tools, toolChoice: { name: "calculator" } });
    expect(
      server.completionRequests
        .at(-1)
        ?.prompt.endsWith('<|im_start|>assistant\n<tool_call>\n{"name":"calculator","arguments":'),
    ).toBe(true);
    expect(server.completionRequests.at(-1)?.prompt).toContain(
      'You must call the tool "calculator" in your reply.',
    );
    const [call] = callsOf(events);
    expect(call?.name).toBe("calculator");
    expect(EXPRESSIONS).toContain(call?.arguments.expression);
    expect(textOf(events)).toBe("");
  });

  it("toolChoice none sends no catalogue and no forced prefix", async () => {
    const model = await createTextCompletionModel({
      baseURL: server.baseURL,
      model: "tiny",
      chatTemplate: { gguf },
      protocol: "hermes",
      maxTokens: 8,
    });
    await collectEvents(model, { messages: ask, tools: [createCalculatorTool().tool], toolChoice: "none" });
    expect(server.completionRequests.at(-1)?.prompt).toBe(
      "<|im_start|>user\nUse a tool.<|im_end|>\n<|im_start|>assistant\n",
    );
  });

  it("re-checks stop sequences on the client: text after a stop the server let through is dropped", async () => {
    const model = await createTextCompletionModel({
      baseURL: server.baseURL,
      model: "tiny",
      chatTemplate: { gguf },
      protocol: "hermes",
      maxTokens: 8,
    });
    const events = await collectEvents(model, { messages: [{ role: "user", content: "STOP-TEST" }] });
    expect(textOf(events)).toBe("Partial answer ");
    expect(events.at(-1)).toMatchObject({ type: "finish", reason: "stop" });
  });

  it("detects mlx-style markup stripping, switches to tag_tool and asks again (or explains the fix when told to)", async () => {
    serverOptions.stripMarkup = ["<tool_call>", "</tool_call>"];
    try {
      const warnings: string[] = [];
      const model = await createTextCompletionModel({
        baseURL: server.baseURL,
        model: "Qwen2.5-7B-Instruct-4bit",
        chatTemplate: { gguf },
        onWarning: (m) => warnings.push(m),
      });
      expect(model.protocol.id).toBe("hermes");
      const tools = [createCalculatorTool().tool];
      const events = await collectEvents(model, { messages: ask, tools });
      expect(warnings[0]).toMatch(
        /removed the model's tool-call markup.*Switching this model to the "tag_tool" protocol/s,
      );
      expect(model.protocol.id).toBe("tag_tool");
      expect(callsOf(events).map((c) => c.name)).toEqual(["calculator"]);
      expect(server.completionRequests.at(-1)?.prompt).toContain("To use a tool, respond with:");

      const strict = await createTextCompletionModel({
        baseURL: server.baseURL,
        model: "qwen2.5",
        chatTemplate: { gguf },
        onMarkupStripped: "error",
      });
      const failure = collectEvents(strict, { messages: ask, tools });
      await expect(failure).rejects.toThrow(MarkupStrippedError);
      await expect(collectEvents(strict, { messages: ask, tools })).rejects.toThrow(/--protocol tag_tool/);

      const mlx = await createTextCompletionModel({
        baseURL: server.baseURL,
        model: "qwen2.5",
        chatTemplate: await loadChatTemplate({ gguf }),
        server: "mlx",
      });
      expect(mlx.protocol.id).toBe("tag_tool");
    } finally {
      delete serverOptions.stripMarkup;
    }
  });
});
