import { describe, expect, it } from "vitest";
import { ConfigError, parseConfig } from "./load-config.js";

function problems(model: unknown): string {
  try {
    parseConfig({ model }, "toolbridge.config.json", "/base");
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected the config to be rejected");
}

describe('the "model" section of toolbridge.config.json', () => {
  it("accepts each provider with its own settings", () => {
    const llama = {
      provider: "llama",
      path: "models/m.gguf",
      threads: 2,
      nativeTools: false,
      protocol: "hermes",
    };
    expect(parseConfig({ model: llama }, "f", "/base").model).toEqual(llama);
    const openai = {
      provider: "openai",
      baseUrl: "http://localhost:11434/v1",
      name: "qwen2.5:7b",
      apiKeyEnv: "MY_KEY",
    };
    expect(parseConfig({ model: openai }, "f", "/base").model).toEqual(openai);
    const completions = {
      provider: "completions",
      baseUrl: "http://127.0.0.1:8080/v1",
      chatTemplate: "qwen2.5",
    };
    expect(parseConfig({ model: completions }, "f", "/base").model).toEqual(completions);
    expect(parseConfig({ model: { provider: "anthropic", maxTokens: 2048 } }, "f", "/base").model).toEqual({
      provider: "anthropic",
      maxTokens: 2048,
    });
  });

  it("reads the model name as modelName (as --model-name spells it) or its older spelling name, not both", () => {
    const base = { provider: "openai", baseUrl: "http://localhost:11434/v1" };
    expect(parseConfig({ model: { ...base, modelName: "qwen" } }, "f", "/base").model).toEqual({
      ...base,
      modelName: "qwen",
    });
    expect(parseConfig({ model: { ...base, name: "qwen" } }, "f", "/base").model).toEqual({
      ...base,
      name: "qwen",
    });
    expect(problems({ ...base, modelName: "a", name: "b" })).toContain(
      'give the model name once, as "modelName"',
    );
    expect(problems(base)).toContain('needs the model name the server knows: "modelName"');
  });

  it("reads toolChoice as a keyword, {name}, or a bare tool name", () => {
    const choice = (toolChoice: unknown) =>
      parseConfig({ model: { provider: "anthropic", toolChoice } }, "f", "/b").model?.toolChoice;
    expect(choice("required")).toBe("required");
    expect(choice({ name: "roll_dice" })).toEqual({ name: "roll_dice" });
    expect(choice("roll_dice")).toEqual({ name: "roll_dice" });
    expect(problems({ provider: "anthropic", toolChoice: "not a tool" })).toContain("`model.toolChoice`");
  });

  it("names each problem and where it is", () => {
    expect(problems({ provider: "gemini" })).toMatch(
      /`model.provider`: "provider" must be one of llama, openai/,
    );
    expect(problems({ provider: "llama" })).toContain("`model.path`");
    expect(problems({ provider: "openai", baseUrl: "http://x/v1" })).toContain("`model.modelName`");
    expect(problems({ provider: "openai", name: "m", path: "x.gguf" })).toContain(
      "unknown key `path` in `model`",
    );
    expect(problems({ provider: "completions" })).toContain("`model.baseUrl`");
    expect(problems({ provider: "completions", baseUrl: "http://x/v1", nativeTools: true })).toContain(
      "no native tools",
    );
    expect(problems({ provider: "anthropic", apiKeyEnv: "sk-ant-123" })).toContain("not the key itself");
    expect(problems({ provider: "llama", path: "m.gguf", maxTokens: 0 })).toContain("`model.maxTokens`");
  });
});

describe('the "models" section (named models for serve)', () => {
  const configProblems = (config: unknown): string => {
    try {
      parseConfig(config, "toolbridge.config.json", "/base");
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      return (error as Error).message;
    }
    throw new Error("expected the config to be rejected");
  };

  it("accepts several named models, each with the settings of `model` plus its concurrency limits", () => {
    const models = {
      local: { provider: "llama", path: "m.gguf", maxConcurrent: 2, maxQueued: 8 },
      "qwen2.5:7b": { provider: "openai", baseUrl: "http://localhost:11434/v1", name: "qwen2.5:7b" },
    };
    expect(parseConfig({ models }, "f", "/base").models).toEqual(models);
  });

  it("names the key of each problem: a bad model name, a bad setting inside a named model, an empty section", () => {
    expect(configProblems({ models: { "bad name": { provider: "llama", path: "m.gguf" } } })).toContain(
      "`models.bad name`: the name is not allowed",
    );
    expect(configProblems({ models: { local: { provider: "llama" } } })).toContain("`models.local.path`");
    expect(
      configProblems({ models: { local: { provider: "llama", path: "m.gguf", maxConcurrent: 0 } } }),
    ).toContain("`models.local.maxConcurrent`");
    expect(configProblems({ models: {} })).toContain("`models`: name at least one model");
  });
});
