import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectProtocol } from "../../src/protocols/detect-protocol.js";

/**
 * Issue 17's formats, detected from short excerpts of each model's chat template (only the marker-bearing lines;
 * each file names its source in a Jinja comment) and from model names as published.
 */
const TEMPLATE_DIR = join(import.meta.dirname, "..", "fixtures", "chat-templates");
const templates = readdirSync(TEMPLATE_DIR)
  .filter((f) => f.endsWith(".jinja"))
  .sort()
  .map((f) => [f.replace(/\.jinja$/, ""), readFileSync(join(TEMPLATE_DIR, f), "utf8")] as const);

describe("detectProtocol: issue 17 chat templates", () => {
  it("has an excerpt for every new format that has a published template", () => {
    expect(templates.map(([id]) => id)).toEqual([
      "apertus",
      "deepseek_v3_2",
      "functiongemma",
      "gemma4",
      "lfm2",
      "nemotron_nano_v2",
      "seed_oss",
      "xlam",
    ]);
  });

  it.each(templates)("%s excerpt → %s", (id, chatTemplate) => {
    expect(detectProtocol({ chatTemplate })).toEqual({ id, source: "chat-template", implemented: true });
  });
});

describe("detectProtocol: issue 17 model names", () => {
  it.each([
    ["gemma-4-31B-it", "gemma4"],
    ["google_gemma-4-E4B-it-Q4_K_M.gguf", "gemma4"],
    ["functiongemma-270m-it", "functiongemma"],
    ["Seed-OSS-36B-Instruct", "seed_oss"],
    ["NVIDIA-Nemotron-Nano-9B-v2", "nemotron_nano_v2"],
    ["LFM2-1.2B-Tool", "lfm2"],
    ["LFM2.5-8B-A1B", "lfm2"],
    ["Apertus-8B-Instruct-2509", "apertus"],
    ["Llama-xLAM-2-8b-fc-r", "xlam"],
    ["xLAM-2-32b-fc-r", "xlam"],
    ["DeepSeek-V3.2", "deepseek_v3_2"],
    ["DeepSeek-V3.2-Exp", "deepseek_v3_1"],
    ["Hunyuan-A13B-Instruct", "hunyuan_a13b"],
    ["ERNIE-4.5-21B-A3B-Thinking", "ernie45"],
    ["GLM-4.6", "glm45"],
  ] as const)("%s → %s", (modelName, id) => {
    expect(detectProtocol({ modelName })).toEqual({ id, source: "model-name", implemented: true });
  });
});
