import { describe, expect, it } from "vitest";
import type { LanguageModel, ModelEvent, ModelRequest } from "../core/language-model.js";
import { loadBfclCategory } from "./bfcl-dataset.js";
import { runEntry } from "./run-entry.js";

const triangle = loadBfclCategory("simple_python")[0]!; // calculate_triangle_area(base=10, height=5)
const settings = { reask: 0, repair: true, timeoutMs: 5_000 };

/** A model that plays one scripted turn per request, and remembers what it was asked. */
function scripted(turns: ModelEvent[][]): LanguageModel & { requests: ModelRequest[] } {
  const requests: ModelRequest[] = [];
  return {
    id: "scripted",
    requests,
    async *stream(request) {
      requests.push(request);
      yield* turns[requests.length - 1] ?? [{ type: "finish", reason: "stop" }];
    },
  };
}

const call = (args: unknown): ModelEvent[] => [
  { type: "call-start", id: "c", name: "calculate_triangle_area" },
  { type: "call-end", id: "c", name: "calculate_triangle_area", arguments: args },
  { type: "finish", reason: "tool-calls", usage: { inputTokens: 100, outputTokens: 20 } },
];

describe("runEntry", () => {
  it("asks the entry's question with its function as a tool, tool choice auto, and scores the call", async () => {
    const model = scripted([call('{"base": 10, "height": 5}')]);
    const result = await runEntry({ model, bfclCase: triangle, settings });
    expect(result).toMatchObject({
      id: "simple_python_0",
      passed: true,
      callsMade: 1,
      callsReadable: 1,
      callsSchemaValid: 1,
      inputTokens: 100,
      outputTokens: 20,
    });
    const request = model.requests[0]!;
    expect(request.toolChoice).toBe("auto");
    expect(request.messages).toEqual([{ role: "user", content: triangle.entry.question[0]![0]!.content }]);
    expect(request.tools.map((t) => t.name)).toEqual(["calculate_triangle_area"]);
    expect(request.tools[0]!.description).toMatch(/Note that the provided function is in Python 3 syntax\.$/);
  });

  it("counts a call whose JSON had to be repaired as read, or — with repair off — as unreadable", async () => {
    const broken = "{'base': 10, 'height': 5,}";
    const on = await runEntry({ model: scripted([call(broken)]), bfclCase: triangle, settings });
    expect(on).toMatchObject({ passed: true, callsRepaired: 1 });
    const off = await runEntry({
      model: scripted([call(broken)]),
      bfclCase: triangle,
      settings: { ...settings, repair: false },
    });
    expect(off).toMatchObject({ passed: false, failure: { class: "unparseable" }, callsReadable: 0 });
  });

  it("with reask, answers a call that fails its schema with the errors and scores the next turn", async () => {
    const turns = [call({ base: "ten", height: 5 }), call({ base: 10, height: 5 })];
    const once = await runEntry({ model: scripted(turns), bfclCase: triangle, settings });
    expect(once).toMatchObject({ passed: false, failure: { class: "wrong-type", param: "base" }, reasks: 0 });
    const model = scripted(turns);
    const again = await runEntry({ model, bfclCase: triangle, settings: { ...settings, reask: 1 } });
    expect(again).toMatchObject({ passed: true, reasks: 1, inputTokens: 200 });
    const retry = model.requests[1]!.messages;
    expect(retry.at(-1)).toMatchObject({ role: "tool", result: { isError: true } });
    expect(JSON.stringify(retry.at(-1))).toContain("base");
  });

  it("reports a backend failure or a timeout as a model error of that entry", async () => {
    const failing: LanguageModel = {
      id: "failing",
      // biome-ignore lint/correctness/useYield: a backend that fails before its first event
      async *stream() {
        throw new Error("the prompt does not fit the context");
      },
    };
    const failed = await runEntry({ model: failing, bfclCase: triangle, settings });
    expect(failed).toMatchObject({
      passed: false,
      failure: { class: "model-error" },
      error: "the prompt does not fit the context",
    });
    const silent: LanguageModel = {
      id: "silent",
      async *stream(request) {
        await new Promise((resolve) => request.signal.addEventListener("abort", resolve));
        yield { type: "finish", reason: "stop" };
      },
    };
    const late = await runEntry({
      model: silent,
      bfclCase: triangle,
      settings: { ...settings, timeoutMs: 50 },
    });
    expect(late).toMatchObject({ failure: { class: "model-error", message: "no answer within 50 ms" } });
  });
});
