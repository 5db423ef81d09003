import { describe, expect, it } from "vitest";
import type { LanguageModel } from "../core/language-model.js";
import { modelIdentity, ownVariant, variantSettings } from "./eval-models.js";

const gguf = {
  provider: "llama" as const,
  path: "/m/q.gguf",
  protocol: "hermes",
  grammar: false,
  maxTokens: 300,
};

describe("eval's model settings per format", () => {
  it("sets native tools or a protocol (and the grammar on a GGUF), keeping the rest", () => {
    expect(variantSettings(gguf, {})).toBe(gguf);
    expect(variantSettings(gguf, { protocol: "native" })).toEqual({
      provider: "llama",
      path: "/m/q.gguf",
      maxTokens: 300,
      nativeTools: true,
    });
    expect(variantSettings(gguf, { protocol: "xlam", grammar: true })).toMatchObject({
      protocol: "xlam",
      nativeTools: false,
      grammar: true,
    });
    const server = { provider: "completions" as const, baseUrl: "http://x/v1" };
    expect(variantSettings(server, { protocol: "pythonic" })).toEqual({ ...server, protocol: "pythonic" });
  });

  it("knows the model's own format, and identifies the model without its sampling settings", () => {
    const native = { id: "m", supportsNativeTools: true } as unknown as LanguageModel;
    const text = {
      id: "m",
      supportsNativeTools: false,
      protocol: { id: "hermes" },
    } as unknown as LanguageModel;
    expect(ownVariant(native, gguf)).toEqual({ protocol: "native" });
    expect(ownVariant(text, gguf)).toEqual({ protocol: "hermes", grammar: false });
    expect(ownVariant(text, { provider: "completions" })).toEqual({ protocol: "hermes" });
    expect(modelIdentity(gguf)).toEqual({ provider: "llama", path: "/m/q.gguf" });
  });
});
