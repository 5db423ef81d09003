/**
 * The middleware over a real model server: a tiny GGUF served on loopback as an OpenAI-compatible `/v1/completions`
 * endpoint (node-llama-cpp generating token by token, streamed as SSE), reached through the AI SDK's own
 * `@ai-sdk/openai-compatible` completion model — a model that knows nothing of tools. For every format whose call
 * carries its arguments as a JSON object, the server's plan writes the format's call around arguments the GGUF
 * generates under a JSON-Schema grammar (random weights write noise otherwise); the AI SDK gets the call, runs the
 * built-in calculator through `toAiSdkTools`, and the next request reads the result in the format. On `ai` 6 and 7.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { generateText, type LanguageModel, stepCountIs, streamText, wrapLanguageModel } from "ai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toAiSdkTools, toolbridgeToolMiddleware } from "../../src/ai-sdk/index.js";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { listProtocols } from "../../src/protocols/index.js";
import type { ToolCallProtocol } from "../../src/protocols/protocol.js";
import { createCalculatorTool } from "../../src/tools/builtin/calculator.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { calcArguments, EXPRESSIONS } from "../models/helpers/calculator-call.js";
import type { CompletionPlan, LlamaServer } from "../models/helpers/llama-openai-server.js";
import { startLlamaOpenAIServer } from "../models/helpers/llama-openai-server.js";
import { AI_SDK_MAJOR } from "./helpers/scripted-model.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-ai-sdk-gguf-"));
const gguf = path.join(dir, "tiny.gguf");
writeTestModel(gguf, { seed: 3 });

/** What the calculator says to each expression the grammar lets the GGUF write. */
const ANSWERS: Record<string, string> = { "2 + 2": "4", "6 * 7": "42", "10 / 4": "2.5" };

const ARGS = /\{\s*"__arguments__":\s*0\s*\}/;

/** The format's call around its arguments: what the server writes before and after the generated object. */
function callFrame(protocol: ToolCallProtocol): CompletionPlan | undefined {
  const rendered = protocol.renderAssistantTurn({
    calls: [{ id: "call_1", name: "calculator", arguments: { __arguments__: 0 } }],
  });
  const at = ARGS.exec(rendered);
  if (!at) return undefined;
  return {
    prefix: rendered.slice(0, at.index),
    schema: calcArguments,
    suffix: rendered.slice(at.index + at[0].length),
  };
}

const FORMATS = listProtocols().flatMap((p) => {
  const frame = callFrame(p);
  return frame ? [[p.id, p, frame] as const] : [];
});

let server: LlamaServer;
/** What the server answers the next request with: the call of the format under test, then free text. */
let plans: Array<CompletionPlan | undefined> = [];
beforeAll(async () => {
  server = await startLlamaOpenAIServer({ modelPath: gguf, completionPlan: () => plans.shift() });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const registry = new ToolRegistry();
registry.register(createCalculatorTool());

describe(`toolbridgeToolMiddleware over a tiny GGUF on /v1/completions, ai ${AI_SDK_MAJOR}`, () => {
  it("covers the formats whose calls carry a JSON object", () => {
    expect(FORMATS.map(([id]) => id)).toEqual(
      expect.arrayContaining(["hermes", "llama3_json", "mistral_v3"]),
    );
    expect(FORMATS.length).toBeGreaterThanOrEqual(20);
  });

  describe.each(FORMATS)("%s", (_id, protocol, frame) => {
    it.each(["stream", "generate"] as const)(
      "%s: the GGUF's call runs, and its result goes back in the format",
      async (mode) => {
        plans = [frame, undefined];
        const requests = server.completionRequests.length;
        const model = wrapLanguageModel({
          model: createOpenAICompatible({ name: "tiny", baseURL: server.baseURL }).completionModel("tiny"),
          middleware: toolbridgeToolMiddleware({ protocol }),
        }) as LanguageModel;
        const options = {
          model,
          tools: toAiSdkTools(registry),
          prompt: "What is 2 + 2?",
          maxOutputTokens: 64,
          stopWhen: stepCountIs(3),
        };
        let steps: Awaited<ReturnType<typeof generateText>>["steps"];
        if (mode === "generate") steps = (await generateText(options)).steps;
        else {
          const result = streamText(options);
          for await (const _ of result.fullStream) {
            // consumed as a UI would
          }
          steps = await result.steps;
        }
        expect(steps).toHaveLength(2);
        const [call] = steps[0]?.toolCalls ?? [];
        expect(call?.toolName).toBe("calculator");
        const expression = (call?.input as { expression?: string } | undefined)?.expression ?? "";
        expect(EXPRESSIONS).toContain(expression);
        expect(steps[0]?.text.trim()).toBe("");
        const answer = ANSWERS[expression] ?? "?";
        expect(JSON.stringify(steps[0]?.toolResults[0]?.output)).toContain(answer);

        const sent = server.completionRequests.slice(requests);
        expect(sent).toHaveLength(2);
        // The first prompt offered the calculator in the format; the second carried the call and its result in it.
        expect(sent[0]?.prompt).toContain("calculator");
        expect(sent[1]?.prompt).toContain(
          protocol.renderToolResults([
            {
              callId: call?.toolCallId ?? "",
              name: "calculator",
              result: { content: [{ type: "text", text: answer }] },
            },
          ]),
        );
        // Generation was streamed token by token when asked to be.
        if (mode === "stream") expect(server.streams.at(-2)?.length).toBeGreaterThan(3);
      },
    );
  });
});
