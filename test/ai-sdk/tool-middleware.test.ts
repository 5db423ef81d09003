/**
 * `toolbridgeToolMiddleware` through the AI SDK's own `generateText` / `streamText` and `wrapLanguageModel`, over the
 * SDK's own scripted test model (`MockLanguageModelV3`, or V4 under `ai` 7) writing each format's text in 1–5
 * character pieces: calls come out as the SDK's tool calls with the right arguments, the text keeps no markup,
 * reasoning goes apart, results go back to the model in the format, tool choice and stop strings hold, and a call
 * that cannot be read reaches `experimental_repairToolCall`. Runs on `ai` 6 (here) and `ai` 7
 * (test/ai-sdk-v7/vitest.config.ts, CI's Node 24 leg).
 */
import type { LanguageModelV3CallOptions } from "@ai-sdk/provider";
import {
  generateText,
  InvalidToolInputError,
  type LanguageModel,
  stepCountIs,
  streamText,
  type ToolSet,
  tool,
  wrapLanguageModel,
} from "ai";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { toolbridgeToolMiddleware } from "../../src/ai-sdk/index.js";
import { forcedChoiceNudge } from "../../src/models/enforce-tool-choice.js";
import { getProtocol, listProtocols, parseToolCalls } from "../../src/protocols/index.js";
import type { ToolCallProtocol } from "../../src/protocols/protocol.js";
import { AI_SDK_MAJOR, promptText, scriptedModel } from "./helpers/scripted-model.js";

const FORECAST: Record<string, number> = { Lima: 19, Oslo: 4 };

function weatherTools(ran: Array<{ city: string; unit?: string }> = []) {
  return {
    get_weather: tool({
      description: "Current weather for a city",
      inputSchema: z.object({ city: z.string(), unit: z.enum(["celsius", "fahrenheit"]).optional() }),
      execute: async (input: { city: string; unit?: string }) => {
        ran.push(input);
        return { city: input.city, temperature: FORECAST[input.city] ?? 0 };
      },
    }),
    get_time: tool({
      description: "Current time in an IANA time zone",
      inputSchema: z.object({ timezone: z.string() }),
      execute: async ({ timezone }: { timezone: string }) => ({ timezone, time: "12:00" }),
    }),
  } satisfies ToolSet;
}

const CALLS = [
  { id: "call_1", name: "get_weather", arguments: { city: "Lima", unit: "celsius" } },
  { id: "call_2", name: "get_weather", arguments: { city: "Oslo" } },
];
const FINAL = "It is 19 °C in Lima and 4 °C in Oslo.";

/** Reasoning in the format's own words: `<think>`, or gpt-oss's analysis channel. */
function withReasoning(protocol: ToolCallProtocol, text: string): string {
  return protocol.id === "gpt_oss_harmony"
    ? `<|channel|>analysis<|message|>checking the forecast<|end|><|start|>assistant${text}`
    : `<think>checking the forecast</think>${text}`;
}

const wrap = (model: ReturnType<typeof scriptedModel>["model"], protocol: string | ToolCallProtocol) =>
  wrapLanguageModel({
    model,
    middleware: toolbridgeToolMiddleware({ protocol }),
  }) as LanguageModel;

type Mode = "generate" | "stream";
const MODES: Mode[] = ["generate", "stream"];

/** generateText or streamText, the result read the same way. */
async function run(mode: Mode, options: Parameters<typeof generateText>[0]) {
  if (mode === "generate") return generateText(options);
  const result = streamText({ ...(options as Parameters<typeof streamText>[0]), onError: () => {} });
  // Everything the stream carries is consumed, as a UI would, before the promises are read.
  const types: string[] = [];
  for await (const part of result.fullStream) types.push(part.type);
  return {
    steps: await result.steps,
    text: await result.text,
    toolCalls: await result.toolCalls,
    finishReason: await result.finishReason,
    usage: await result.usage,
    warnings: await result.warnings,
    types,
  };
}

describe(`toolbridgeToolMiddleware on ai ${AI_SDK_MAJOR}`, () => {
  describe.each(listProtocols().map((p) => [p.id, p] as const))("%s", (_id, protocol) => {
    it.each(MODES)(
      "%s: calls with their arguments, text without markup, reasoning apart, results fed back",
      async (mode) => {
        const turn = withReasoning(
          protocol,
          protocol.renderAssistantTurn({ content: "Let me check.", calls: CALLS }),
        );
        const scripted = scriptedModel([turn, FINAL], { seed: protocol.id.length });
        const ran: Array<{ city: string; unit?: string }> = [];
        const result = await run(mode, {
          model: wrap(scripted.model, protocol.id),
          tools: weatherTools(ran),
          prompt: "What is the weather in Lima and Oslo?",
          stopWhen: stepCountIs(3),
        });
        // The one-shot parse is what the format's own tests prove right: streamed through the SDK, the same.
        const oneShot = parseToolCalls(protocol, turn, {});
        const [first, second] = result.steps;
        expect(first?.toolCalls.map((c) => ({ name: c.toolName, arguments: c.input }))).toEqual(
          CALLS.map(({ name, arguments: args }) => ({ name, arguments: args })),
        );
        expect(first?.text.trim()).toBe(oneShot.content);
        for (const marker of protocol.callStartMarkers) expect(first?.text).not.toContain(marker);
        expect(first?.text).not.toContain("Lima");
        expect(first?.reasoningText).toBe(oneShot.reasoning);
        expect(first?.reasoningText).toContain("checking the forecast");
        expect(first?.text).not.toContain("checking the forecast");
        expect(first?.finishReason).toBe("tool-calls");
        expect(ran).toEqual([{ city: "Lima", unit: "celsius" }, { city: "Oslo" }]);
        expect(second?.text).toBe(FINAL);
        expect(result.text).toBe(FINAL);

        // The model was offered the tools in the format, never as API tools, and read its calls and their results
        // back in the format.
        const [firstCall, secondCall] = scripted.calls as [
          LanguageModelV3CallOptions,
          LanguageModelV3CallOptions,
        ];
        expect(firstCall.tools).toBeUndefined();
        expect(firstCall.toolChoice).toBeUndefined();
        expect(firstCall.prompt[0]?.role).toBe("system");
        expect(promptText(firstCall)).toContain("get_weather");
        const calls = (first?.toolCalls ?? []).map((c) => ({
          id: c.toolCallId,
          name: c.toolName,
          arguments: c.input as Record<string, unknown>,
        }));
        const history = promptText(secondCall);
        expect(history).toContain(protocol.renderAssistantTurn({ content: oneShot.content, calls }));
        expect(history).toContain(
          protocol.renderToolResults(
            calls.map((c) => ({
              callId: c.id,
              name: c.name,
              result: {
                content: [
                  {
                    type: "text",
                    text: JSON.stringify({
                      city: c.arguments.city,
                      temperature: FORECAST[String(c.arguments.city)],
                    }),
                  },
                ],
              },
            })),
          ),
        );
      },
    );
  });

  describe.each(MODES)("%s", (mode) => {
    it('toolChoice "required": a turn without a call is asked again, and the second answer\'s call runs', async () => {
      const hermes = getProtocol("hermes");
      const scripted = scriptedModel([
        "It is probably sunny.",
        hermes.renderAssistantTurn({ calls: [CALLS[0]!] }),
        FINAL,
      ]);
      const ran: Array<{ city: string }> = [];
      const result = await run(mode, {
        model: wrap(scripted.model, "hermes"),
        tools: weatherTools(ran),
        toolChoice: "required",
        prompt: "Weather in Lima?",
        stopWhen: stepCountIs(1),
      });
      expect(result.steps).toHaveLength(1);
      expect(result.toolCalls.map((c) => c.input)).toEqual([{ city: "Lima", unit: "celsius" }]);
      expect(ran).toHaveLength(1);
      expect(result.steps[0]?.text).toBe("");
      expect(promptText(scripted.calls[0]!)).toContain("You must call at least one tool");
      const retry = promptText(scripted.calls[1]!);
      expect(retry).toContain("It is probably sunny.");
      expect(retry).toContain(forcedChoiceNudge("required"));
      // Both attempts' tokens are counted.
      expect(result.usage.outputTokens).toBe(14);
    });

    it("a named tool choice offers that tool alone and gets its call", async () => {
      const hermes = getProtocol("hermes");
      const scripted = scriptedModel([
        hermes.renderAssistantTurn({
          calls: [{ id: "c", name: "get_time", arguments: { timezone: "Asia/Tokyo" } }],
        }),
      ]);
      const result = await run(mode, {
        model: wrap(scripted.model, "hermes"),
        tools: weatherTools(),
        toolChoice: { type: "tool", toolName: "get_time" },
        prompt: "Time in Tokyo?",
      });
      expect(result.toolCalls.map((c) => [c.toolName, c.input])).toEqual([
        ["get_time", { timezone: "Asia/Tokyo" }],
      ]);
      const system = promptText(scripted.calls[0]!);
      expect(system).toContain("get_time");
      expect(system).not.toContain("get_weather");
      expect(system).toContain('You must call the tool "get_time"');
    });

    it('toolChoice "none": no catalogue, and a call the model writes anyway stays its text (as on /v1: nothing vanishes)', async () => {
      const hermes = getProtocol("hermes");
      const scripted = scriptedModel([`Here. ${hermes.renderAssistantTurn({ calls: [CALLS[0]!] })} Bye.`]);
      const ran: unknown[] = [];
      const result = await run(mode, {
        model: wrap(scripted.model, "hermes"),
        tools: weatherTools(ran as never),
        toolChoice: "none",
        prompt: "Weather in Lima?",
      });
      expect(result.toolCalls).toEqual([]);
      expect(ran).toEqual([]);
      expect(result.text).toBe(`Here. ${hermes.renderAssistantTurn({ calls: [CALLS[0]!] })} Bye.`);
      expect(result.finishReason).toBe("stop");
      expect(promptText(scripted.calls[0]!)).not.toContain("get_weather");
    });

    it("experimental_repairToolCall gets a call the parser could not read, and the repaired call runs", async () => {
      const scripted = scriptedModel([
        'Checking. <tool_call>\n{"name": "get_weather", "arguments": "city=Lima"}\n</tool_call>',
        FINAL,
      ]);
      const ran: Array<{ city: string }> = [];
      const seen: Array<{ error: unknown; toolName: string; input: string }> = [];
      const result = await run(mode, {
        model: wrap(scripted.model, "hermes"),
        tools: weatherTools(ran),
        prompt: "Weather in Lima?",
        stopWhen: stepCountIs(2),
        experimental_repairToolCall: async ({ toolCall, error }) => {
          seen.push({ error, toolName: toolCall.toolName, input: toolCall.input });
          return { ...toolCall, input: JSON.stringify({ city: "Lima" }) };
        },
      });
      expect(seen).toHaveLength(1);
      expect(InvalidToolInputError.isInstance(seen[0]?.error)).toBe(true);
      expect(seen[0]?.toolName).toBe("get_weather");
      expect(seen[0]?.input).toContain("city=Lima");
      expect(ran).toEqual([{ city: "Lima" }]);
      expect(result.steps[0]?.text).toBe("Checking. ");
      expect(result.text).toBe(FINAL);
    });

    it("without a repair, an unreadable or cut-off call is an invalid call the model is told about, and nothing runs", async () => {
      const scripted = scriptedModel([
        '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Li',
        FINAL,
      ]);
      const ran: unknown[] = [];
      const result = await run(mode, {
        model: wrap(scripted.model, "hermes"),
        tools: weatherTools(ran as never),
        prompt: "Weather in Lima?",
        stopWhen: stepCountIs(2),
      });
      expect(ran).toEqual([]);
      const [call] = result.steps[0]?.toolCalls ?? [];
      expect(call?.toolName).toBe("get_weather");
      expect((call as { invalid?: boolean }).invalid).toBe(true);
      expect(result.steps[0]?.content.some((p) => p.type === "tool-error")).toBe(true);
      // The next turn shows the model its error in the format's result markup.
      const history = promptText(scripted.calls[1]!);
      expect(history).toContain("<tool_response>\nError");
      expect(result.text).toBe(FINAL);
    });

    it('protocol "auto" reads the format the model id names (Llama 3.1 → llama3_json)', async () => {
      const llama3 = getProtocol("llama3_json");
      const scripted = scriptedModel([llama3.renderAssistantTurn({ calls: [CALLS[1]!] })], {
        modelId: "Meta-Llama-3.1-8B-Instruct",
      });
      const result = await run(mode, {
        model: wrap(scripted.model, "auto"),
        tools: weatherTools(),
        prompt: "Weather in Oslo?",
      });
      expect(result.toolCalls.map((c) => c.input)).toEqual([{ city: "Oslo" }]);
      expect(promptText(scripted.calls[0]!)).toContain(llama3.renderCatalogue([]).slice(0, 20));
    });

    it("stop strings end the visible text, never a call: the model is sent the format's stop instead", async () => {
      const hermes = getProtocol("hermes");
      const scripted = scriptedModel([
        `Sure. ${hermes.renderAssistantTurn({ calls: [{ id: "c", name: "get_weather", arguments: { city: "END" } }] })} Done. END and more`,
      ]);
      const ran: Array<{ city: string }> = [];
      const result = await run(mode, {
        model: wrap(scripted.model, "hermes"),
        tools: weatherTools(ran),
        prompt: "Weather?",
        stopSequences: ["END"],
      });
      expect(ran).toEqual([{ city: "END" }]);
      expect(result.text).toBe("Sure.  Done. ");
      expect(scripted.calls[0]?.stopSequences).toEqual(["<tool_response>"]);
    });

    it("provider-defined tools are left out with a warning; everything else the model sends passes", async () => {
      const hermes = getProtocol("hermes");
      const scripted = scriptedModel([hermes.renderAssistantTurn({ calls: [CALLS[1]!] })]);
      const tools = {
        ...weatherTools(),
        web_search: { type: "provider", id: "openai.web_search", args: {} },
      } as unknown as ToolSet;
      const result = await run(mode, { model: wrap(scripted.model, "hermes"), tools, prompt: "Weather?" });
      expect(result.toolCalls.map((c) => c.toolName)).toEqual(["get_weather"]);
      expect(JSON.stringify(result.warnings)).toContain("openai.web_search");
    });
  });

  it("streams a call as tool-input parts before the tool-call", async () => {
    const hermes = getProtocol("hermes");
    const scripted = scriptedModel([
      hermes.renderAssistantTurn({ content: "On it.", calls: [CALLS[0]!] }),
      FINAL,
    ]);
    const result = await run("stream", {
      model: wrap(scripted.model, "hermes"),
      tools: weatherTools(),
      prompt: "Weather in Lima?",
      stopWhen: stepCountIs(2),
    });
    const types = (result as { types: string[] }).types;
    const start = types.indexOf("tool-input-start");
    expect(start).toBeGreaterThan(types.indexOf("text-delta"));
    expect(types.indexOf("tool-input-delta")).toBeGreaterThan(start);
    expect(types.indexOf("tool-input-end")).toBeGreaterThan(types.indexOf("tool-input-delta"));
    expect(types.indexOf("tool-call")).toBeGreaterThan(types.indexOf("tool-input-end"));
  });

  it.each(MODES)(
    "%s: parallelToolCalls false — one call per turn: the catalogue says so and the turn ends with the first call",
    async (mode) => {
      const hermes = getProtocol("hermes");
      const scripted = scriptedModel([hermes.renderAssistantTurn({ calls: CALLS })]);
      const model = wrapLanguageModel({
        model: scripted.model,
        middleware: toolbridgeToolMiddleware({ protocol: hermes, parallelToolCalls: false }),
      }) as LanguageModel;
      const result = await run(mode, { model, tools: weatherTools(), prompt: "Weather?" });
      expect(result.toolCalls.map((c) => c.input)).toEqual([{ city: "Lima", unit: "celsius" }]);
      expect(promptText(scripted.calls[0]!)).toContain("at most one function");
    },
  );

  it("a model without tools in the call is left alone", async () => {
    const scripted = scriptedModel(["Plain <b>text</b>."]);
    const result = await generateText({ model: wrap(scripted.model, "hermes"), prompt: "Hi" });
    expect(result.text).toBe("Plain <b>text</b>.");
    expect(scripted.calls[0]?.prompt).toEqual([{ role: "user", content: [{ type: "text", text: "Hi" }] }]);
  });

  it("an unknown format is an error when the middleware is made, naming the formats there are", () => {
    expect(() => toolbridgeToolMiddleware({ protocol: "hermes2" })).toThrow(/hermes2[\s\S]*hermes/);
  });
});
