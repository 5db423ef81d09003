import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, jsonSchema, streamText, tool } from "ai";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { toOpenAITools } from "../../../src/models/message-converters/openai-chat-messages.js";
import { createBuiltinTools } from "../../../src/tools/builtin/index.js";
import { CLI_MAIN, runCli } from "../../helpers/run-cli.js";

// `toolbridge serve` as a user runs it — the built bin, no config at all — answering OpenAI clients at /v1 with the
// bundled demo model.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

const dir = mkdtempSync(path.join(tmpdir(), "tb-serve-v1-"));
let child: ChildProcessWithoutNullStreams;
let url: string;
let stdout = "";

beforeAll(async () => {
  child = spawn(process.execPath, [CLI_MAIN, "serve", "--port", "0", "--db", path.join(dir, "db.sqlite")], {
    cwd: dir,
    env: {
      ...process.env,
      NO_COLOR: "1",
      TOOLBRIDGE_MODEL: "",
      TOOLBRIDGE_BASE_URL: "",
      TOOLBRIDGE_PROVIDER: "",
    },
  });
  url = await new Promise<string>((resolve, reject) => {
    let err = "";
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 60_000);
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /OpenAI-compatible API at (http:\/\/\S+)\/v1 /.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString();
    });
    child.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${err}`)));
  });
});
afterAll(() => {
  child?.kill("SIGTERM");
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
