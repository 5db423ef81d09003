import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { inCliTerms } from "./cli-wording.js";

const source = (file: string) => readFileSync(new URL(`../models/${file}`, import.meta.url), "utf8");

describe("inCliTerms", () => {
  // Each case is a message as the models room writes it today (checked against its source, so a rewording there
  // fails here instead of leaking library wording into the CLI again).
  it.each([
    [
      "llama/llama-generation.ts",
      'try mode "text" or another tool-call protocol',
      /--no-native-tools/,
      /mode "text"/,
    ],
    [
      "anthropic/anthropic-messages-model.ts",
      "set ANTHROPIC_API_KEY or pass apiKey",
      /apiKeyEnv/,
      /pass apiKey/,
    ],
    ["openai/describe-openai-error.ts", "Set OPENAI_API_KEY (or apiKey)", /apiKeyEnv/, /\(or apiKey\)/],
    [
      "completions/text-completion-model.ts",
      'pass chatTemplate { tokenizerConfig: "<dir>/tokenizer_config.json" }, { gguf: "<file.gguf>" } or { builtin: "chatml" | "qwen2.5" | "qwen3" | "llama3" | "mistral" | "gemma" }',
      /--chat-template <dir>\/tokenizer_config\.json.*"qwen2\.5"/,
      /\{ tokenizerConfig/,
    ],
  ])("rewords %s in CLI terms", (file, message, wanted, unwanted) => {
    expect(source(file)).toContain(message);
    const text = inCliTerms(`Something failed: ${message}.`);
    expect(text).toMatch(wanted);
    expect(text).not.toMatch(unwanted);
  });

  it("drops the second period of a wrapped message, and nothing else", () => {
    expect(inCliTerms('Cannot load x: Expected "GGUF" but got "root".. Is it a GGUF?')).toBe(
      'Cannot load x: Expected "GGUF" but got "root". Is it a GGUF?',
    );
    expect(inCliTerms("see ../notes and wait…")).toBe("see ../notes and wait…");
  });
});
