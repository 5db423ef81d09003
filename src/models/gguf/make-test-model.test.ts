import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { getLlama, LlamaChatSession } from "node-llama-cpp";
import { describe, expect, it } from "vitest";
import { makeTestModel, writeTestModel } from "./make-test-model.js";

describe("makeTestModel", () => {
  it("is reproducible: same seed, same bytes; another seed, other weights", () => {
    const a = makeTestModel({ seed: 3 });
    expect(makeTestModel({ seed: 3 }).equals(a)).toBe(true);
    expect(makeTestModel({ seed: 4 }).equals(a)).toBe(false);
  });

  it("writes a model node-llama-cpp loads, tokenizes losslessly and generates with through its ChatML wrapper", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tb-gguf-"));
    const file = path.join(dir, "tiny.gguf");
    const started = performance.now();
    writeTestModel(file, { seed: 11 });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(readFileSync(file).subarray(0, 4).toString()).toBe("GGUF");

    const llama = await getLlama({ gpu: false, build: "never" });
    const model = await llama.loadModel({ modelPath: file });
    try {
      const text = 'Héllo <tool_call>{"name": "calc", "arguments": {"x": "a\\nb"}}</tool_call> 🎲';
      const tokens = model.tokenize(text, true);
      expect(model.detokenize(tokens)).toBe(text);
      // The tool-call marker is one user-defined token, so call prefixes can match token-wise.
      expect(model.tokenize("<tool_call>", true)).toHaveLength(1);

      const context = await model.createContext({ contextSize: 1024, threads: 1 });
      const session = new LlamaChatSession({ contextSequence: context.getSequence() });
      expect(session.chatWrapper.wrapperName).toBe("ChatML");
      const meta = await session.promptWithMeta("hello", { maxTokens: 20, seed: 1 });
      expect(meta.response.length).toBeGreaterThan(0);
      await context.dispose();
    } finally {
      await model.dispose();
    }
  });
});
