import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LlamaCompletion } from "node-llama-cpp";
import { afterAll, describe, expect, it } from "vitest";
import type { ModelEvent } from "../../core/language-model.js";
import { writeTestModel } from "../gguf/make-test-model.js";
import { ModelRequestError } from "../model-errors.js";
import { pumpGeneration } from "./llama-generation.js";
import { loadLlama } from "./llama-runtime.js";

const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-llama-generation-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const modelPath = path.join(dir, "tiny.gguf");
writeTestModel(modelPath, { seed: 3 });

describe("a generation node-llama-cpp leaves stuck", () => {
  it("fails the stream at once with a clear error, and its sequence is given to no later generation", async () => {
    // One sequence per context, so the pool's next sequence shows whether the stuck one came back.
    const loaded = await loadLlama({ modelPath, gpu: false, threads: 1, sequences: 1 });
    const stuck = await loaded.acquire();
    // A real dead end, as the bundled model met it: the grammar allows only "m³", and a tiny model's bias bans the
    // byte tokens "³" is written with. Sampling fails inside node-llama-cpp, and its generation never settles.
    const grammar = await loaded.llama.createGrammar({ grammar: 'root ::= "m³"' });
    const request = {
      messages: [],
      tools: [],
      toolChoice: "auto" as const,
      signal: new AbortController().signal,
    };
    const events: ModelEvent[] = [];
    const started = performance.now();
    let failure: unknown;
    try {
      for await (const event of pumpGeneration(
        request,
        async (_queue, controller) => {
          const completion = new LlamaCompletion({ contextSequence: stuck });
          await completion.generateCompletionWithMeta(loaded.model.tokenize("volume: "), {
            grammar,
            ...(loaded.tokenBias ? { tokenBias: loaded.tokenBias } : {}),
            signal: controller.signal,
            stopOnAbortSignal: true,
            maxTokens: 8,
          });
        },
        (generation) => loaded.holdUntil(stuck, generation),
      ))
        events.push(event);
    } catch (error) {
      failure = error;
    }
    expect(failure).toBeInstanceOf(ModelRequestError);
    expect((failure as Error).message).toMatch(/node-llama-cpp failed while generating: .*grammar/);
    expect(performance.now() - started).toBeLessThan(10_000);
    // Released as the model releases every sequence; the next generation gets another one, and it works.
    loaded.release(stuck);
    const next = await loaded.acquire();
    expect(next).not.toBe(stuck);
    const completion = new LlamaCompletion({ contextSequence: next });
    const answer = await completion.generateCompletion(loaded.model.tokenize("volume: "), { maxTokens: 4 });
    expect(typeof answer).toBe("string");
    completion.dispose({ disposeSequence: false });
    loaded.release(next);
  }, 60_000);
});
