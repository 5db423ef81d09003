import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { ModelEvent } from "../../src/core/language-model.js";
import { bundledModelPath } from "../../src/models/bundled-model.js";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { createLlamaModel } from "../../src/models/llama/index.js";
import { convertBfclFunctionToTool } from "../../src/tools/bfcl-schema.js";
import { loadBfclCategory } from "../helpers/bfcl.js";

// Tiny models ban raw high-byte tokens (their free text would be broken UTF-8), and a copied argument
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

describe("a tiny model answering in a JSON format whose values are outside ASCII", () => {
  it("finishes the answer with one of the enum's values", async () => {
    const cities = ["Zürich", "Genève", "Ōsaka"];
    let text = "";
    for await (const event of model.stream({
      messages: [{ role: "user", content: "Which city? Answer in JSON." }],
      tools: [],
      toolChoice: "auto",
      responseFormat: {
        type: "json_schema",
        name: "city",
        schema: { type: "object", properties: { city: { enum: cities } }, required: ["city"] },
      },
      signal: AbortSignal.timeout(30_000),
    }))
      if (event.type === "text-delta") text += event.text;
    expect(cities).toContain((JSON.parse(text) as { city: string }).city);
  }, 60_000);
});

describe("a tiny model in native mode, offered an enum outside ASCII", () => {
  // node-llama-cpp's parameter grammar allowed only "Zürich", "Genève" or "Ōsaka", the ban every byte they are written
  // with: the same hang, in native mode.
  const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-outside-ascii-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const tinyPath = path.join(dir, "tiny.gguf");
  writeTestModel(tinyPath, { seed: 7 });
  const native = createLlamaModel({
    modelPath: tinyPath,
    mode: "native",
    threads: 1,
    gpu: false,
    maxTokens: 128,
  });
  const cities = ["Zürich", "Genève", "Ōsaka"];

  it("finishes forced calls with one of the enum's values", async () => {
    for (const seed of [1, 2, 3]) {
      const calls: unknown[] = [];
      for await (const event of native.stream({
        messages: [{ role: "user", content: "weather?" }],
        sampling: { seed, temperature: 0.9 },
        tools: [
          {
            name: "weather",
            inputSchema: {
              type: "object",
              properties: { city: { type: "string", enum: cities } },
              required: ["city"],
            },
          },
        ],
        toolChoice: "required",
        signal: AbortSignal.timeout(30_000),
      }))
        if (event.type === "call-end") calls.push(event.arguments);
      expect(calls).toHaveLength(1);
      const args = calls[0];
      const city = (typeof args === "string" ? JSON.parse(args) : args) as { city: string };
      expect(cities).toContain(city.city);
    }
  }, 120_000);
});
