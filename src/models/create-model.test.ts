import { describe, expect, it } from "vitest";
import { createModel } from "./create-model.js";
import { ModelConfigError } from "./model-errors.js";

describe("createModel", () => {
  it("routes: native tools for openai and anthropic, a text protocol for completions and for openai with tools: protocol", async () => {
    const openai = await createModel({ backend: "openai", model: "gpt-4.1-mini", apiKey: "k" });
    expect([openai.id, openai.supportsNativeTools]).toEqual(["openai:gpt-4.1-mini", true]);
    const anthropic = await createModel({ backend: "anthropic", model: "claude-haiku-4-5", apiKey: "k" });
    expect(anthropic.supportsNativeTools).toBe(true);
    const completions = await createModel({
      backend: "completions",
      baseURL: "http://127.0.0.1:1/v1",
      model: "Qwen2.5-7B-Instruct",
    });
    expect(completions.supportsNativeTools).toBe(false);
    const forced = await createModel({
      backend: "openai",
      model: "llama-3.1-8b",
      tools: "protocol",
      protocol: "tag_tool",
      apiKey: "k",
    });
    expect([forced.id, forced.supportsNativeTools]).toEqual(["openai:llama-3.1-8b+tag_tool", false]);
  });

  it("explains what is missing", async () => {
    await expect(
      createModel({ backend: "completions", baseURL: "http://x/v1", model: "my-finetune" }),
    ).rejects.toThrow(/needs the model's chat template/);
    await expect(createModel({ backend: "nope" } as never)).rejects.toThrow(ModelConfigError);
  });
});
