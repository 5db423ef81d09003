import type { LanguageModelV3CallOptions, LanguageModelV3StreamPart } from "@ai-sdk/provider";
import { simulateReadableStream } from "ai";
import * as aiTest from "ai/test";

/**
 * Which major of `ai` these tests run on: 6 (LanguageModelV3) with the project's own install, 7 (LanguageModelV4)
 * under test/ai-sdk-v7/vitest.config.ts, which points `ai` and its providers at test/ai-sdk-v7's install.
 */
export const AI_SDK_MAJOR: 6 | 7 = "MockLanguageModelV4" in aiTest ? 7 : 6;

/** The SDK's own test model of that major (the V4 one under `ai` 7): the real model contract, scripted. */
const MockLanguageModel = ((aiTest as Record<string, unknown>).MockLanguageModelV4 ??
  aiTest.MockLanguageModelV3) as typeof aiTest.MockLanguageModelV3;

/** mulberry32: the same chunks for the same seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `text` in pieces of 1–5 characters, as a model streams tokens (a surrogate pair is never split). */
export function chunk(text: string, seed: number): string[] {
  const rng = prng(seed);
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    let end = Math.min(text.length, i + 1 + Math.floor(rng() * 5));
    const c = text.charCodeAt(end - 1);
    if (c >= 0xd800 && c <= 0xdbff && end < text.length) end++;
    out.push(text.slice(i, end));
    i = end;
  }
  return out;
}

const STOP = { unified: "stop" as const, raw: "stop" };
const TOOL_CALLS = { unified: "tool-calls" as const, raw: "tool_calls" };
const USAGE = {
  inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 7, text: 7, reasoning: 0 },
};

/** One answer of the script: text (as a text-only model writes it), or native tool calls (as a provider's API sends them). */
export type ScriptedTurn = string | { calls: ReadonlyArray<{ toolName: string; input: unknown }> };

export interface ScriptedModel {
  model: InstanceType<typeof aiTest.MockLanguageModelV3>;
  /** What the model was sent, call by call (after every middleware). */
  calls: LanguageModelV3CallOptions[];
}

/**
 * An AI SDK test model that answers with the given turns, one per call (the last one again when the script runs out):
 * text in `generate` mode as one text part and in `stream` mode split into 1–5 character `text-delta`s; native calls
 * as `tool-call` content and parts.
 */
export function scriptedModel(
  turns: readonly ScriptedTurn[] | ((call: number, options: LanguageModelV3CallOptions) => ScriptedTurn),
  options: { seed?: number; modelId?: string } = {},
): ScriptedModel {
  const calls: LanguageModelV3CallOptions[] = [];
  const nativeCalls = (turn: Exclude<ScriptedTurn, string>) =>
    turn.calls.map((c, i) => ({
      type: "tool-call" as const,
      toolCallId: `native_${calls.length}_${i}`,
      toolName: c.toolName,
      input: JSON.stringify(c.input),
    }));
  const next = (opts: LanguageModelV3CallOptions): ScriptedTurn => {
    calls.push(opts);
    const n = calls.length - 1;
    return typeof turns === "function" ? turns(n, opts) : (turns[Math.min(n, turns.length - 1)] ?? "");
  };
  const model = new MockLanguageModel({
    ...(options.modelId ? { modelId: options.modelId } : {}),
    doGenerate: async (opts) => {
      const turn = next(opts);
      return typeof turn === "string"
        ? { content: [{ type: "text", text: turn }], finishReason: STOP, usage: USAGE, warnings: [] }
        : { content: nativeCalls(turn), finishReason: TOOL_CALLS, usage: USAGE, warnings: [] };
    },
    doStream: async (opts) => {
      const turn = next(opts);
      const body: LanguageModelV3StreamPart[] =
        typeof turn === "string"
          ? [
              { type: "text-start", id: "0" },
              ...chunk(turn, (options.seed ?? 1) + calls.length).map((delta) => ({
                type: "text-delta" as const,
                id: "0",
                delta,
              })),
              { type: "text-end", id: "0" },
            ]
          : nativeCalls(turn);
      const parts: LanguageModelV3StreamPart[] = [
        { type: "stream-start", warnings: [] },
        { type: "response-metadata", id: `resp-${calls.length}`, modelId: options.modelId ?? "scripted" },
        ...body,
        { type: "finish", finishReason: typeof turn === "string" ? STOP : TOOL_CALLS, usage: USAGE },
      ];
      return {
        stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }),
      };
    },
  });
  return { model, calls };
}

/** The text of a prompt as the model read it: system, user and assistant texts, in order. */
export function promptText(options: LanguageModelV3CallOptions): string {
  return options.prompt
    .map((m) =>
      typeof m.content === "string"
        ? m.content
        : m.content.map((p) => ("text" in p && typeof p.text === "string" ? p.text : `[${p.type}]`)).join(""),
    )
    .join("\n");
}
