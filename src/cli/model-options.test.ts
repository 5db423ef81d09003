import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { Command } from "commander";
import { beforeAll, describe, expect, it } from "vitest";
import type { ModelConfig } from "../config/model-config-schema.js";
import { CliError } from "./cli-error.js";
import {
  addModelOptions,
  MODEL_KEYS,
  type ModelFlags,
  modelEnvName,
  modelFlagName,
  parseToolChoice,
  requireModelSettings,
  resolveModelSettings,
} from "./model-options.js";

let dir: string;
let gguf: string;
let other: string;
let turns: string;
const configFile = () => path.join(dir, "toolbridge.config.json");

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-model-options-"));
  gguf = path.join(dir, "model.gguf");
  other = path.join(dir, "other.gguf");
  turns = path.join(dir, "turns.jsonl");
  for (const file of [gguf, other, turns]) writeFileSync(file, "");
});

function resolve(flags: ModelFlags, env: Record<string, string> = {}, config?: ModelConfig) {
  return resolveModelSettings({ flags, env, config, configFile: configFile(), cwd: dir });
}

function usageError(body: () => unknown): CliError {
  try {
    body();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    return error as CliError;
  }
  throw new Error("expected a usage error");
}

describe("model settings: flags over environment over config file", () => {
  const config: ModelConfig = { provider: "llama", path: "model.gguf", threads: 2, toolChoice: "required" };

  it("takes the config file's model, with its path resolved against the file's folder", () => {
    expect(resolve({}, {}, config)).toEqual({
      provider: "llama",
      path: gguf,
      threads: 2,
      toolChoice: "required",
    });
  });

  it("lets the environment replace the config's model, and a flag replace both", () => {
    const env = { TOOLBRIDGE_MODEL: "other.gguf" };
    expect(resolve({}, env, config)).toMatchObject({ provider: "llama", path: other });
    expect(resolve({ model: "model.gguf" }, env, config)).toMatchObject({ provider: "llama", path: gguf });
    expect(resolve({ model: `replay:${turns}` }, env, config)).toMatchObject({
      provider: "replay",
      path: turns,
    });
  });

  it("keeps a lower layer's model-specific settings only for the same provider; general ones always", () => {
    // Same provider: the config's threads stay. General: toolChoice stays even when the flags pick another backend.
    expect(resolve({ model: "other.gguf" }, {}, config)).toEqual({
      provider: "llama",
      path: other,
      threads: 2,
      toolChoice: "required",
    });
    expect(resolve({ anthropic: true }, {}, config)).toEqual({
      provider: "anthropic",
      toolChoice: "required",
    });
  });

  it("refines a configured server with a flag, and --api switches chat ↔ completions", () => {
    const server: ModelConfig = {
      provider: "openai",
      baseUrl: "http://127.0.0.1:9/v1",
      name: "qwen",
      maxTokens: 99,
    };
    expect(resolve({ modelName: "llama3" }, {}, server)).toEqual({
      provider: "openai",
      baseUrl: "http://127.0.0.1:9/v1",
      name: "llama3",
      maxTokens: 99,
    });
    expect(resolve({ api: "completions" }, {}, server)).toMatchObject({
      provider: "completions",
      name: "qwen",
    });
    expect(resolve({}, { TOOLBRIDGE_MODEL_NAME: "from-env" }, server)).toMatchObject({ name: "from-env" });
  });

  it("reads the routing override and tool choice with the same precedence", () => {
    const server: ModelConfig = { provider: "openai", name: "m", nativeTools: false, toolChoice: "none" };
    expect(resolve({}, {}, server)).toMatchObject({ nativeTools: false, toolChoice: "none" });
    expect(resolve({ nativeTools: true, toolChoice: "calculator" }, {}, server)).toMatchObject({
      nativeTools: true,
      toolChoice: { name: "calculator" },
    });
    expect(resolve({}, { TOOLBRIDGE_TOOL_CHOICE: "required" }, server)).toMatchObject({
      toolChoice: "required",
    });
  });

  it("chooses a server from the environment only through toolbridge's own variables", () => {
    expect(
      resolve({}, { OPENAI_API_KEY: "sk-x", OPENAI_BASE_URL: "http://x/v1", ANTHROPIC_API_KEY: "k" }),
    ).toBe(undefined);
    expect(
      resolve({}, { TOOLBRIDGE_BASE_URL: "http://127.0.0.1:8080/v1", TOOLBRIDGE_API: "completions" }),
    ).toEqual({ provider: "completions", baseUrl: "http://127.0.0.1:8080/v1" });
    expect(resolve({}, { TOOLBRIDGE_PROVIDER: "anthropic", TOOLBRIDGE_MODEL_NAME: "claude-x" })).toEqual({
      provider: "anthropic",
      name: "claude-x",
    });
  });

  it("says how to point toolbridge at a model when none is configured (exit 2)", () => {
    const error = usageError(() =>
      requireModelSettings(
        { flags: {}, env: {}, config: undefined, configFile: undefined, cwd: dir },
        "chat",
        () => undefined, // no bundled default model
      ),
    );
    expect(error.message).toMatch(/^no model configured/);
    expect(error.message).toContain("toolbridge chat --model ./model.gguf");
    expect(error.message).toContain("--base-url http://localhost:11434/v1 --model-name");
    expect(error.message).toContain("--api completions");
    expect(error.message).toContain("--anthropic");
    expect(error.message).toContain('{"model": {"provider": "llama"');
  });

  it("falls back to the default model (the bundled one, once there is one) only when nothing names a model", () => {
    const fallback = () => ({ provider: "llama" as const, path: other });
    const input = { env: {}, configFile: undefined, cwd: dir };
    expect(requireModelSettings({ ...input, flags: {} }, "run", fallback)).toEqual({
      provider: "llama",
      path: other,
    });
    expect(requireModelSettings({ ...input, flags: { model: "model.gguf" } }, "run", fallback).path).toBe(
      gguf,
    );
  });

  it("applies every setting that does not choose a model to the default model too", () => {
    const fallback = () => ({ provider: "llama" as const, path: other, nativeTools: false });
    const input = { env: { TOOLBRIDGE_SEED: "9" }, configFile: undefined, cwd: dir };
    expect(
      requireModelSettings(
        { ...input, flags: { toolChoice: "required", maxTokens: "12", threads: "1", grammar: false } },
        "run",
        fallback,
      ),
    ).toEqual({
      provider: "llama",
      path: other,
      nativeTools: false,
      toolChoice: "required",
      maxTokens: 12,
      seed: 9,
      threads: 1,
      grammar: false,
    });
    expect(
      usageError(() => requireModelSettings({ ...input, flags: { seed: "x" } }, "run", fallback)).message,
    ).toContain("--seed");
    expect(
      usageError(() => requireModelSettings({ ...input, flags: { api: "completions" } }, "run", fallback))
        .message,
    ).toContain("--api");
  });

  it("rejects contradictory or unusable settings with a message that says what to do", () => {
    expect(usageError(() => resolve({ model: "model.gguf", anthropic: true })).message).toContain(
      "--model and --anthropic",
    );
    expect(usageError(() => resolve({ model: "missing.gguf" })).message).toContain("GGUF file not found");
    expect(usageError(() => resolve({ model: "http://localhost:8080" })).message).toContain("--base-url");
    expect(usageError(() => resolve({ baseUrl: "http://127.0.0.1:1/v1" })).message).toContain("--model-name");
    expect(usageError(() => resolve({ baseUrl: "localhost:8080" })).message).toContain("http(s) URL");
    expect(
      usageError(() => resolve({ baseUrl: "http://127.0.0.1:1/v1", api: "completions", nativeTools: true }))
        .message,
    ).toContain("text-only");
    expect(usageError(() => resolve({ model: "model.gguf", api: "completions" })).message).toContain("--api");
    expect(usageError(() => resolve({ model: "model.gguf", seed: "-1" })).message).toContain("--seed");
    expect(
      usageError(() => resolve({ baseUrl: "http://127.0.0.1:1/v1", modelName: "m", grammar: false })).message,
    ).toContain("applies to a local GGUF model");
    expect(
      usageError(() => resolve({ model: "model.gguf" }, { TOOLBRIDGE_GRAMMAR: "maybe" })).message,
    ).toContain("TOOLBRIDGE_GRAMMAR");
    expect(
      usageError(() => resolve({}, {}, { provider: "anthropic", apiKeyEnv: "TB_TEST_MISSING_KEY" })).message,
    ).toContain("TB_TEST_MISSING_KEY");
  });
});

describe("one layer builder: the same keys in flags, environment and config file", () => {
  it("has a flag and a variable for every key, named after it, and no flag that is not a key", () => {
    const flags = addModelOptions(new Command())
      .options.map((o) => o.long)
      .filter(
        (f) =>
          f !== "--no-native-tools" &&
          f !== "--no-copy-arguments" &&
          f !== "--no-copy-words" &&
          f !== "--no-grammar",
      );
    expect(flags.sort()).toEqual(MODEL_KEYS.map(modelFlagName).sort());
    expect(MODEL_KEYS.map(modelEnvName)).toEqual([
      "TOOLBRIDGE_MODEL",
      "TOOLBRIDGE_BASE_URL",
      "TOOLBRIDGE_API",
      "TOOLBRIDGE_PROVIDER",
      "TOOLBRIDGE_MODEL_NAME",
      "TOOLBRIDGE_CHAT_TEMPLATE",
      "TOOLBRIDGE_PROTOCOL",
      "TOOLBRIDGE_NATIVE_TOOLS",
      "TOOLBRIDGE_TOOL_CHOICE",
      "TOOLBRIDGE_MAX_TOKENS",
      "TOOLBRIDGE_SEED",
      "TOOLBRIDGE_THREADS",
      "TOOLBRIDGE_COPY_ARGUMENTS",
      "TOOLBRIDGE_COPY_WORDS",
      "TOOLBRIDGE_GRAMMAR",
      "TOOLBRIDGE_API_KEY_ENV",
    ]);
  });

  it.each([
    ["copyArguments", "TOOLBRIDGE_COPY_ARGUMENTS"],
    ["copyWords", "TOOLBRIDGE_COPY_WORDS"],
  ] as const)("reads %s for a GGUF from a flag, the environment or the config", (key, variable) => {
    expect(resolve({ model: gguf, [key]: false })).toEqual({ provider: "llama", path: gguf, [key]: false });
    expect(resolve({}, { TOOLBRIDGE_MODEL: gguf, [variable]: "true" })).toEqual({
      provider: "llama",
      path: gguf,
      [key]: true,
    });
    expect(resolve({}, {}, { provider: "llama", path: gguf, [key]: false })).toEqual({
      provider: "llama",
      path: gguf,
      [key]: false,
    });
    expect(usageError(() => resolve({}, { TOOLBRIDGE_MODEL: gguf, [variable]: "maybe" })).message).toContain(
      variable,
    );
  });

  it("reads the same settings the same way from each place, and names the place's spelling when one is wrong", () => {
    const server = {
      baseUrl: "http://127.0.0.1:9/v1",
      modelName: "qwen",
      maxTokens: 12,
      seed: 3,
      apiKeyEnv: "MY_KEY",
    };
    const expected = {
      provider: "openai",
      baseUrl: "http://127.0.0.1:9/v1",
      name: "qwen",
      maxTokens: 12,
      seed: 3,
      apiKeyEnv: "MY_KEY",
      toolChoice: { name: "calculator" },
      nativeTools: false,
    };
    const env: Record<string, string> = { MY_KEY: "k" };
    const flags: ModelFlags = {};
    const text = { ...server, toolChoice: "calculator", nativeTools: "false" };
    for (const key of MODEL_KEYS) {
      const value = (text as Record<string, unknown>)[key];
      if (value === undefined) continue;
      env[modelEnvName(key)] = String(value);
      (flags as Record<string, unknown>)[key] = key === "nativeTools" ? false : String(value);
    }
    expect(resolve(flags, { MY_KEY: "k" })).toEqual(expected);
    expect(resolve({}, env)).toEqual(expected);
    expect(
      resolve(
        {},
        { MY_KEY: "k" },
        { provider: "openai", ...server, toolChoice: { name: "calculator" }, nativeTools: false },
      ),
    ).toEqual(expected);
    expect(usageError(() => resolve({ ...flags, maxTokens: "0" }, { MY_KEY: "k" })).message).toContain(
      "--max-tokens",
    );
    expect(usageError(() => resolve({}, { ...env, TOOLBRIDGE_MAX_TOKENS: "0" })).message).toContain(
      "TOOLBRIDGE_MAX_TOKENS",
    );
    expect(usageError(() => resolve({}, {}, { provider: "openai", ...server })).message).toContain("MY_KEY");
    expect(usageError(() => resolve({ ...flags, apiKeyEnv: "sk-123 key" }, {})).message).toContain(
      "--api-key-env must be the name of an environment variable",
    );
  });

  it("takes the config's model name as modelName or as its older spelling name", () => {
    const base = { provider: "openai" as const, baseUrl: "http://127.0.0.1:9/v1" };
    expect(resolve({}, {}, { ...base, modelName: "qwen" })).toEqual({ ...base, name: "qwen" });
    expect(resolve({}, {}, { ...base, name: "qwen" })).toEqual({ ...base, name: "qwen" });
    expect(resolve({ modelName: "flag" }, {}, { ...base, modelName: "qwen" })).toEqual({
      ...base,
      name: "flag",
    });
  });
});

describe("parseToolChoice", () => {
  it("reads the keywords and tool names, and refuses anything else", () => {
    expect(parseToolChoice("auto")).toBe("auto");
    expect(parseToolChoice("required")).toBe("required");
    expect(parseToolChoice("none")).toBe("none");
    expect(parseToolChoice("roll_dice")).toEqual({ name: "roll_dice" });
    expect(() => parseToolChoice("two words")).toThrow(/auto, required, none or a tool name/);
  });
});
