import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Tool } from "@modelcontextprotocol/server";
import { afterAll, describe, expect, it } from "vitest";
import type { ModelEvent, ModelRequest } from "../../core/language-model.js";
import { validateToolInput } from "../../tools/validate-tool-input.js";
import { BUILTIN_CHAT_TEMPLATES } from "../chat-template/builtin-chat-templates.js";
import { writeTestModel } from "../gguf/make-test-model.js";
import { createLlamaModel } from "./llama-language-model.js";

// Native mode without a loop hook (what /v1 asks for: the server runs no tool), on tiny random-weights GGUFs. Seed
// and one thread fix the tokens, so each case always generates the same thing; what is asserted is the shape.
const dir = mkdtempSync(path.join(tmpdir(), "tb-native-turn-"));
const chatMl = path.join(dir, "chatml.gguf");
const qwen = path.join(dir, "qwen.gguf");
writeTestModel(chatMl, { seed: 7 });
writeTestModel(qwen, { seed: 7, chatTemplate: BUILTIN_CHAT_TEMPLATES["qwen2.5"].template });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOOLS: Tool[] = [
  {
    name: "lookup",
    description: "Look a word up",
    inputSchema: {
      type: "object",
      properties: { word: { type: "string", maxLength: 12 } },
      required: ["word"],
    },
  },
  {
    name: "add",
    description: "Add two numbers",
    inputSchema: {
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" } },
      required: ["a", "b"],
    },
  },
];

async function turn(modelPath: string, request: Partial<ModelRequest>): Promise<ModelEvent[]> {
  const model = createLlamaModel({ modelPath, mode: "native", threads: 1, seed: 3, gpu: false });
  const events: ModelEvent[] = [];
  for await (const event of model.stream({
    messages: [{ role: "user", content: "Look these up." }],
    tools: TOOLS,
    toolChoice: "required",
    signal: AbortSignal.timeout(60_000),
    ...request,
  }))
    events.push(event);
  return events;
}

/** Each call as a call-start directly followed by its call-end (same id, same name), arguments valid for the tool. */
function callsOf(events: readonly ModelEvent[]): { id: string; name: string }[] {
  const calls: { id: string; name: string }[] = [];
  events.forEach((event, i) => {
    if (event.type !== "call-start") return;
    const end = events[i + 1];
    expect(end?.type).toBe("call-end");
    if (end?.type !== "call-end") return;
    expect([end.id, end.name]).toEqual([event.id, event.name]);
    const tool = TOOLS.find((t) => t.name === end.name);
    expect(tool && validateToolInput(tool, end.arguments).ok).toBe(true);
    calls.push({ id: String(end.id), name: end.name });
  });
  return calls;
}

describe("native turn without a loop hook", () => {
  it("a forced call comes back exactly once when the chat wrapper has no parallel-call syntax (ChatML)", async () => {
    const events = await turn(chatMl, { maxTokens: 120 });
    expect(callsOf(events)).toHaveLength(1);
    expect(events.filter((e) => e.type === "call-end")).toHaveLength(1);
    const finish = events.at(-1);
    expect(finish).toMatchObject({ type: "finish", reason: "tool-calls" });
    // The call's own tokens count: a response made only of a call used to report 0.
    expect(finish?.type === "finish" && finish.usage?.outputTokens).toBeGreaterThan(0);
  });

  it("returns every call of the response, in order after the text, when the template has a parallel syntax", async () => {
    const events = await turn(qwen, { toolChoice: { name: "lookup" }, maxTokens: 120 });
    const calls = callsOf(events);
    expect(calls.length).toBeGreaterThanOrEqual(2);
    expect(new Set(calls.map((c) => c.id)).size).toBe(calls.length);
    expect(calls.every((c) => c.name === "lookup")).toBe(true);
    const kinds = events.map((e) => e.type);
    expect(kinds.lastIndexOf("text-delta")).toBeLessThan(kinds.indexOf("call-start"));
    const finish = events.at(-1);
    expect(finish).toMatchObject({ type: "finish", reason: "tool-calls" });
    const used = finish?.type === "finish" ? (finish.usage?.outputTokens ?? 0) : 0;
    expect(used).toBeGreaterThan(0);
    expect(used).toBeLessThanOrEqual(120);
  });

  it("a loop hook still receives the calls one by one as they are made, and none go out as events", async () => {
    const seen: string[] = [];
    const events = await turn(qwen, {
      toolChoice: { name: "add" },
      maxTokens: 60,
      executeCall: async (call) => {
        seen.push(call.name);
        return { status: "pending" };
      },
    });
    expect(seen.length).toBeGreaterThanOrEqual(1);
    expect(seen.every((name) => name === "add")).toBe(true);
    expect(events.some((e) => e.type === "call-start" || e.type === "call-end")).toBe(false);
    expect(events.at(-1)).toMatchObject({ type: "finish", reason: "tool-calls" });
  });
});
