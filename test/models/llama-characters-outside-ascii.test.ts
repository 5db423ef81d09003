import { describe, expect, it } from "vitest";
import type { ModelEvent } from "../../src/core/language-model.js";
import { bundledModelPath } from "../../src/models/bundled-model.js";
import { createLlamaModel } from "../../src/models/llama/index.js";
import { convertBfclFunctionToTool } from "../../src/tools/bfcl-schema.js";
import { loadBfclCategory } from "../helpers/bfcl.js";

// The bundled model bans raw high-byte tokens (a tiny model's free text would be broken UTF-8), and a copied argument
// may hold a character only byte tokens write ("15 m³"). Together the two once left the sampler no token at all, and
// node-llama-cpp's generation never returned — not even to its abort signal: `toolbridge chat` hung on "remember that
// my café is Zoë's on 5th", and `bench:copy-arguments` stopped at BFCL simple_python_48.
const model = createLlamaModel({
  modelPath: bundledModelPath(),
  mode: "text",
  protocol: "hermes",
  threads: 1,
  gpu: false,
  temperature: 0,
  maxTokens: 160,
  copyArguments: true,
});
const questions = loadBfclCategory("simple_python").filter(({ entry }) =>
  ["simple_python_48", "simple_python_50", "simple_python_340"].includes(entry.id),
);
/** The characters outside ASCII in a text. */
const outsideAscii = (text: string) => new Set(text.match(/[^\x00-\x7F]/gu) ?? []);

describe("a tiny model copying characters outside ASCII", () => {
  it("finds the three BFCL questions it is checked on", () => {
    expect(questions).toHaveLength(3);
  });

  for (const { entry } of questions) {
    const question = entry.question[0]?.[0]?.content ?? "";
    it(`finishes a forced call on "${question.slice(0, 60)}…", writing no character the question lacks`, async () => {
      const events: ModelEvent[] = [];
      for await (const event of model.stream({
        messages: [{ role: "user", content: question }],
        tools: entry.function.map(convertBfclFunctionToTool),
        toolChoice: "required",
        signal: AbortSignal.timeout(30_000),
      }))
        events.push(event);
      expect(events.at(-1)?.type).toBe("finish");
      const asked = outsideAscii(question);
      for (const event of events)
        if (event.type === "call-end")
          for (const c of outsideAscii(JSON.stringify(event.arguments))) expect(asked).toContain(c);
    }, 60_000);
  }
});
