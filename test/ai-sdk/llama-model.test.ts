/**
 * `llama("./model.gguf")`: node-llama-cpp run in-process behind the AI SDK's `streamText`/`generateText`, on a tiny
 * random-weights GGUF the test writes. Random weights write noise, so what is tested is what a grammar guarantees: a
 * forced call comes out as the SDK's tool call with arguments valid against the tool's schema (an enum holds), in
 * native and text mode, the SDK runs it and feeds the result back for the next step; and the adapter's plumbing
 * (warnings, usage, a file the model cannot read, a model file that is not there). On `ai` 6 and 7.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { generateText, type ModelMessage, stepCountIs, streamText, tool } from "ai";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { llama, toAiSdkModel } from "../../src/ai-sdk/index.js";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { createReplayModel } from "../../src/models/replay-model.js";
import { AI_SDK_MAJOR } from "./helpers/scripted-model.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-ai-sdk-llama-"));
const gguf = path.join(dir, "tiny.gguf");
writeTestModel(gguf, { seed: 5 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CITIES = ["Lima", "Oslo", "Tokyo"] as const;

function tools(ran: string[]) {
  return {
    get_weather: tool({
      description: "Current weather for a city",
      inputSchema: z.object({ city: z.enum(CITIES) }),
      execute: async ({ city }: { city: string }) => {
        ran.push(city);
        return `${city}: 19 °C`;
      },
    }),
  };
}

describe(`llama() on ai ${AI_SDK_MAJOR}`, () => {
  describe.each(["native", "text"] as const)("%s mode", (mode) => {
    const model = llama(gguf, { mode, threads: 1, maxTokens: 200, temperature: 0, seed: 1, gpu: false });

    it("streamText: a forced call is a tool call the schema accepts, run by the SDK, its result fed back", async () => {
      const ran: string[] = [];
      const result = streamText({
        model,
        tools: tools(ran),
        toolChoice: "required",
        prompt: "What is the weather in Lima?",
        stopWhen: stepCountIs(2),
        // After the call, the model answers in words.
        prepareStep: ({ stepNumber }) => (stepNumber > 0 ? { toolChoice: "none" } : {}),
      });
      const types = new Set<string>();
      for await (const part of result.fullStream) types.add(part.type);
      const steps = await result.steps;
      expect(steps).toHaveLength(2);
      const [call] = steps[0]?.toolCalls ?? [];
      expect(call?.toolName).toBe("get_weather");
      const city = (call?.input as { city?: string } | undefined)?.city;
      expect(CITIES).toContain(city);
      expect(ran).toEqual([city]);
      expect(steps[0]?.finishReason).toBe("tool-calls");
      expect(["tool-input-start", "tool-call", "tool-result"].every((t) => types.has(t))).toBe(true);
      // The second step saw the result and wrote text without calling again.
      expect(steps[1]?.toolCalls).toEqual([]);
      expect(steps[1]?.usage.outputTokens).toBeGreaterThan(0);
    });

    it("generateText: a named tool choice gets that tool's call", async () => {
      const ran: string[] = [];
      const result = await generateText({
        model,
        tools: tools(ran),
        toolChoice: { type: "tool", toolName: "get_weather" },
        prompt: "Weather in Oslo?",
      });
      expect(result.toolCalls).toHaveLength(1);
      expect(CITIES).toContain((result.toolCalls[0]?.input as { city?: string } | undefined)?.city);
      expect(ran).toHaveLength(1);
    });
  });

  it("reads the conversation the SDK keeps: results, and calls it made before", async () => {
    // A replay model behind the same adapter shows what a toolbridge model is sent.
    const seen: string[] = [];
    const replay = createReplayModel([{ text: "(turn 1 is in the messages)" }, { text: "It is 19 °C." }]);
    const model = toAiSdkModel({
      id: "replay",
      stream: (request) => {
        seen.push(JSON.stringify(request.messages));
        return replay.stream(request);
      },
    });
    const messages: ModelMessage[] = [
      { role: "user", content: "Weather in Lima?" },
      {
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c1", toolName: "get_weather", input: { city: "Lima" } }],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "c1",
            toolName: "get_weather",
            output: { type: "text", value: "19 °C" },
          },
        ],
      },
    ];
    const result = await generateText({ model, tools: tools([]), messages });
    expect(result.text).toBe("It is 19 °C.");
    expect(JSON.parse(seen[0] ?? "[]")).toEqual([
      { role: "user", content: "Weather in Lima?" },
      {
        role: "assistant",
        content: "",
        toolCalls: [{ id: "c1", name: "get_weather", arguments: { city: "Lima" } }],
      },
      {
        role: "tool",
        callId: "c1",
        name: "get_weather",
        result: { content: [{ type: "text", text: "19 °C" }] },
      },
    ]);
  });

  it("refuses a file it cannot read, with a message saying so, before generating", async () => {
    const model = llama(gguf, { threads: 1, gpu: false });
    await expect(
      generateText({
        model,
        maxRetries: 0,
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is this?" },
              { type: "file", data: new Uint8Array([1, 2, 3]), mediaType: "image/png" },
            ],
          },
        ],
      }),
    ).rejects.toThrow(/reads text only.*image\/png/);
  });

  it("a model file that is not there fails the call with the path in the message", async () => {
    const model = llama(path.join(dir, "missing.gguf"), { threads: 1, gpu: false });
    await expect(generateText({ model, maxRetries: 0, prompt: "Hi" })).rejects.toThrow(/missing\.gguf/);
  });
});
