/**
 * bench/server-v1 — tokens/s of `/v1/chat/completions` streaming (the openai client over loopback HTTP + SSE, through
 * the model catalog's gate, the text protocol and the chunk writer) vs node-llama-cpp generating the same prompt
 * directly (LlamaCompletion on the same loaded model, same sampling, same stop triggers), on the tiny test GGUF with 1
 * thread — the worst case for overhead, since the model itself is so fast. Goal: ratio ≥ 0.95.
 * Usage: npm run bench:server-v1 [-- --runs N --tokens N]
 */
import { fork } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { LlamaCompletion } from "node-llama-cpp";
import OpenAI from "openai";
import { writeTestModel } from "../src/models/gguf/make-test-model.js";
import { createLlamaModel } from "../src/models/llama/index.js";
import { ModelCatalog } from "../src/server/model-catalog.js";
import { startServer } from "../src/server/start-server.js";
import { ToolExecutor } from "../src/tools/tool-executor.js";
import { ToolRegistry } from "../src/tools/tool-registry.js";

/**
 * The client runs in a child process, as a real client would: its SSE parsing must not share the server's event loop
 * (per-token JS on that loop is what paces node-llama-cpp's generation). It times each request itself.
 */
if (process.argv.includes("--client")) {
  process.on("message", async (message: { url: string; question: string; maxTokens: number }) => {
    const client = new OpenAI({ baseURL: `${message.url}/v1`, apiKey: "unused", maxRetries: 0 });
    const started = performance.now();
    const stream = await client.chat.completions.create({
      model: "tiny",
      messages: [{ role: "user", content: message.question }],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: message.maxTokens,
    });
    let tokens = 0;
    for await (const chunk of stream) if (chunk.usage) tokens = chunk.usage.completion_tokens;
    process.send?.({ tokens, ms: performance.now() - started });
  });
} else await main();

async function main(): Promise<void> {
  const arg = (name: string, fallback: number) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? fallback : Number(process.argv[at + 1]) || fallback;
  };
  const runs = arg("--runs", 7);
  const maxTokens = arg("--tokens", 1500);

  const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-bench-v1-"));
  const modelPath = path.join(dir, "tiny.gguf");
  writeTestModel(modelPath, { seed: 1 });
  const model = createLlamaModel({
    modelPath,
    mode: "text",
    protocol: "hermes",
    threads: 1,
    gpu: false,
    temperature: 0,
    maxTokens,
  });
  const loaded = await model.load();
  const models = new ModelCatalog({ tiny: { create: async () => model, maxConcurrent: 1 } });
  const registry = new ToolRegistry();
  const server = await startServer({
    registry,
    executor: new ToolExecutor(registry),
    port: 0,
    openai: { models },
  });

  const question = "Tell me a long story about the sea.";
  // What the text turn renders for one user message and no tools (ChatML, the test model's template).
  const prompt = `<|im_start|>user\n${question}<|im_end|>\n<|im_start|>assistant\n`;
  const stops = ["<|im_end|>", "<tool_response>"];

  async function direct(): Promise<{ tokens: number; ms: number }> {
    const sequence = await loaded.acquire();
    const completion = new LlamaCompletion({ contextSequence: sequence });
    let tokens = 0;
    const started = performance.now();
    try {
      const bos =
        loaded.model.tokens.bos !== null && loaded.model.tokens.shouldPrependBosToken
          ? [loaded.model.tokens.bos]
          : [];
      await completion.generateCompletionWithMeta([...bos, ...loaded.model.tokenize(prompt, true)], {
        maxTokens,
        temperature: 0,
        customStopTriggers: stops,
        ...(loaded.tokenBias ? { tokenBias: loaded.tokenBias } : {}),
        onToken: (t) => {
          tokens += t.length;
        },
        onTextChunk: () => {},
      });
    } finally {
      completion.dispose({ disposeSequence: false });
      loaded.release(sequence);
    }
    return { tokens, ms: performance.now() - started };
  }

  const child = fork(fileURLToPath(import.meta.url), ["--client"], { execArgv: process.execArgv });
  function throughV1(): Promise<{ tokens: number; ms: number }> {
    return new Promise((resolve) => {
      child.once("message", (result) => resolve(result as { tokens: number; ms: number }));
      child.send({ url: server.url, question, maxTokens });
    });
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  await direct();
  await throughV1();
  const directRates: number[] = [];
  const v1Rates: number[] = [];
  let directTokens = 0;
  let v1Tokens = 0;
  for (let i = 0; i < runs; i++) {
    // Alternated, so drift on a shared machine hits both sides alike.
    const d = await direct();
    const v = await throughV1();
    directRates.push((d.tokens / d.ms) * 1000);
    v1Rates.push((v.tokens / v.ms) * 1000);
    directTokens = d.tokens;
    v1Tokens = v.tokens;
  }
  const directRate = median(directRates);
  const v1Rate = median(v1Rates);
  console.log(
    `tiny GGUF, 1 thread, ${runs} runs (medians), ~${v1Tokens} tokens per answer (direct ${directTokens})`,
  );
  console.log(`node-llama-cpp directly:        ${directRate.toFixed(0)} tokens/s`);
  console.log(`/v1 streaming (openai client in a child process): ${v1Rate.toFixed(0)} tokens/s`);
  console.log(`ratio /v1 ÷ direct:             ${(v1Rate / directRate).toFixed(3)}  (goal ≥ 0.95)`);
  child.kill();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
