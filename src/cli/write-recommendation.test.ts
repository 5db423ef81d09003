import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { CliError } from "./cli-error.js";
import { writeRecommendation } from "./write-recommendation.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-recommend-"));
const gguf = path.join(dir, "models", "qwen.gguf");
const read = (file: string) => JSON.parse(readFileSync(file, "utf8"));

describe("writeRecommendation (eval --recommend)", () => {
  it("creates the model entry when the config has none, keeping every other key", () => {
    const file = path.join(dir, "a.json");
    writeFileSync(file, JSON.stringify({ tools: { timeoutMs: 1000 } }));
    const written = writeRecommendation({
      configPath: file,
      settings: { provider: "llama", path: gguf },
      variant: { protocol: "pythonic", grammar: false },
    });
    expect(written.entry).toBe("model");
    expect(read(file)).toEqual({
      tools: { timeoutMs: 1000 },
      model: {
        provider: "llama",
        path: "models/qwen.gguf",
        protocol: "pythonic",
        nativeTools: false,
        grammar: false,
      },
    });
  });

  it("updates the entry that describes the evaluated model: `model` or a named one", () => {
    const file = path.join(dir, "b.json");
    writeFileSync(
      file,
      JSON.stringify({
        model: {
          provider: "llama",
          path: "models/qwen.gguf",
          protocol: "hermes",
          grammar: false,
          maxTokens: 300,
        },
        models: { remote: { provider: "openai", baseUrl: "http://127.0.0.1:9/v1", modelName: "m" } },
      }),
    );
    writeRecommendation({
      configPath: file,
      settings: { provider: "llama", path: gguf },
      variant: { protocol: "native" },
    });
    expect(read(file).model).toEqual({
      provider: "llama",
      path: "models/qwen.gguf",
      maxTokens: 300,
      nativeTools: true,
    });
    const named = writeRecommendation({
      configPath: file,
      settings: { provider: "openai", baseUrl: "http://127.0.0.1:9/v1", name: "m" },
      variant: { protocol: "xlam" },
    });
    expect(named.entry).toBe("models.remote");
    expect(read(file).models.remote).toMatchObject({ protocol: "xlam", nativeTools: false });
  });

  it("changes nothing when the config's model is another one, or the file is not JSON", () => {
    const file = path.join(dir, "c.json");
    const text = JSON.stringify({ model: { provider: "anthropic", modelName: "claude-haiku-4-5" } });
    writeFileSync(file, text);
    expect(() =>
      writeRecommendation({
        configPath: file,
        settings: { provider: "llama", path: gguf },
        variant: { protocol: "hermes" },
      }),
    ).toThrow(CliError);
    expect(readFileSync(file, "utf8")).toBe(text);
    writeFileSync(file, "{ not json");
    expect(() =>
      writeRecommendation({
        configPath: file,
        settings: { provider: "llama", path: gguf },
        variant: { protocol: "hermes" },
      }),
    ).toThrow(/cannot read .* as JSON.*nothing was written/);
    expect(readFileSync(file, "utf8")).toBe("{ not json");
  });
});
