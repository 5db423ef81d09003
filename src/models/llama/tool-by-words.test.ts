import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Tool } from "@modelcontextprotocol/server";
import { afterAll, describe, expect, it } from "vitest";
import { callsOf, collectEvents } from "../../../test/models/helpers/collect-events.js";
import { writeTestModel } from "../gguf/make-test-model.js";
import { createLlamaModel } from "./llama-language-model.js";
import { toolByWords } from "./tool-by-words.js";

const tool = (name: string, description: string, parameter: string): Tool => ({
  name,
  description,
  inputSchema: { type: "object", properties: { [parameter]: { type: "string" } }, required: [parameter] },
});
const CLIENT_TOOLS = [
  tool("translate", "Translate text", "text"),
  tool("search_web", "Search the web", "query"),
  tool("get_weather", "Current weather for a city", "city"),
];
const ask = (content: string) => [{ role: "user" as const, content }];
const none = new Set<string>();

describe("toolByWords: the tool a request's words point at, among tools the model never saw", () => {
  it("names the tool whose words the request shares, from the latest request", () => {
    expect(toolByWords(CLIENT_TOOLS, ask("search the web for best hiking boots"), none)).toBe("search_web");
    expect(
      toolByWords(
        CLIENT_TOOLS,
        [
          ...ask("translate good night into German"),
          { role: "assistant", content: "Gute Nacht" },
          ...ask("weather in Oslo?"),
        ],
        none,
      ),
    ).toBe("get_weather");
  });

  it("leaves the choice to the model when no tool shares a word, two are close, one tool is offered, or it knows one", () => {
    expect(toolByWords(CLIENT_TOOLS, ask("what does ephemeral mean?"), none)).toBeUndefined();
    const twoWeathers = [
      tool("get_weather", "Weather for a city", "city"),
      tool("weather_forecast", "Weather for a city", "city"),
    ];
    expect(toolByWords(twoWeathers, ask("weather in Oslo"), none)).toBeUndefined();
    expect(toolByWords(CLIENT_TOOLS.slice(1, 2), ask("search the web"), none)).toBeUndefined();
    expect(toolByWords(CLIENT_TOOLS, ask("search the web"), new Set(["translate"]))).toBeUndefined();
    expect(toolByWords(CLIENT_TOOLS, [], none)).toBeUndefined();
  });
});

describe("a GGUF in text mode with toolByWords", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "tb-tool-by-words-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const gguf = path.join(dir, "random.gguf");
  writeTestModel(gguf, { seed: 5 });

  /** The calls a random model makes for a web search it is made to answer with a call, on one seed. */
  async function calls(seed: number, toolByWords: boolean) {
    const model = createLlamaModel({
      modelPath: gguf,
      mode: "text",
      protocol: "hermes",
      threads: 1,
      seed,
      toolByWords,
      maxTokens: 200,
    });
    const events = await collectEvents(model, {
      messages: ask("search the web for hiking boots"),
      tools: CLIENT_TOOLS,
      toolChoice: "required",
    });
    return callsOf(events);
  }

  // A random model writes whichever name the grammar lets it: held to the request's words, it can write only one.
  // Its query is a whole span of the request that ends where a phrase may (span-grammar.ts): never "hiking" alone.
  const SPANS = ["search", "web", "boots"].flatMap((end) =>
    ["search", "the", "web", "for", "hiking", "boots"]
      .map((_, start, words) => words.slice(start, words.indexOf(end) + 1).join(" "))
      .filter((span) => span.endsWith(end)),
  );
  it.each([1, 2, 3])(
    "calls the tool the request's words point at, with a span of the request, whatever the model would pick (seed %i)",
    async (seed) => {
      const made = await calls(seed, true);
      expect(made.map((c) => c.name)).toEqual(["search_web"]);
      expect(SPANS).toContain(String(made[0]?.arguments.query).toLowerCase());
    },
    60_000,
  );

  it("without it, the same random model picks other tools too, and words in any order", async () => {
    const names = new Set<string>();
    const values = new Set<string>();
    for (const seed of [1, 2, 3, 4, 5, 6])
      for (const call of await calls(seed, false)) {
        names.add(call.name);
        for (const value of Object.values(call.arguments)) values.add(String(value).toLowerCase());
      }
    expect([...names].some((name) => name !== "search_web")).toBe(true);
    expect([...values].some((value) => !SPANS.includes(value))).toBe(true);
  }, 120_000);
});
