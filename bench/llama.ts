/**
 * bench/llama — on the tiny test GGUF (1 thread):
 * 1. tokens/s of grammar-constrained call generation (the text-protocol call-body grammar of the built-in tools)
 *    vs unconstrained generation of the same length, same prompt, same sequence;
 * 2. the agent loop's added latency per step vs a raw node-llama-cpp `promptWithMeta` of the same length.
 * Usage: npm run bench:llama [-- --runs N]
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { LlamaChatSession, LlamaCompletion } from "node-llama-cpp";
import { createAgent } from "../src/agent/create-agent.js";
import { writeTestModel } from "../src/models/gguf/make-test-model.js";
import { callFrames, createCallBodyGrammar } from "../src/models/llama/call-body-grammar.js";
import { createLlamaModel } from "../src/models/llama/index.js";
import { getProtocol } from "../src/protocols/protocol-registry.js";
import { createBuiltinTools } from "../src/tools/builtin/index.js";
import { ToolRegistry } from "../src/tools/tool-registry.js";

const runs = Number(process.argv[process.argv.indexOf("--runs") + 1]) || 20;
const dir = mkdtempSync(path.join(tmpdir(), "toolbridge-bench-llama-"));
const modelPath = path.join(dir, "tiny.gguf");
writeTestModel(modelPath, { seed: 1 });
const definitions = createBuiltinTools().filter((d) =>
  ["calculator", "get_time", "roll_dice"].includes(d.tool.name),
);
const tools = definitions.map((d) => d.tool);

const model = createLlamaModel({ modelPath, threads: 1, gpu: false, maxTokens: 64, temperature: 0 });
const loaded = await model.load();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

// 1. Constrained vs unconstrained decoding speed. The grammar adds a roughly fixed cost per token, so its share
// depends on how fast the model itself is: measured on the tiny test model (the worst case, thousands of tokens/s)
// and on a 26M-parameter random model closer to what people run.
async function decodeOverhead(
  label: string,
  loadedModel: Awaited<ReturnType<typeof model.load>>,
): Promise<void> {
  const frames = callFrames(getProtocol("hermes"), tools)!;
  const grammar = await createCallBodyGrammar(loadedModel.llama, frames.frames, tools, {
    maxStringLength: 1000,
  });
  const sequence = await loadedModel.acquire();
  const completion = new LlamaCompletion({ contextSequence: sequence });
  const prompt = loadedModel.model.tokenize(
    "<|im_start|>user\nCompute 3*7.<|im_end|>\n<|im_start|>assistant\n<tool_call>",
    true,
  );
  const speed = async (constrained: boolean): Promise<number> => {
    let tokens = 0;
    const started = performance.now();
    await completion.generateCompletionWithMeta(prompt, {
      maxTokens: 200,
      temperature: 0,
      onToken: (t) => {
        tokens += t.length;
      },
      ...(constrained ? { grammar } : {}),
      ...(loadedModel.tokenBias ? { tokenBias: loadedModel.tokenBias } : {}),
    });
    return tokens / ((performance.now() - started) / 1000);
  };
  await speed(false);
  await speed(true);
  const free: number[] = [];
  const constrained: number[] = [];
  for (let i = 0; i < runs; i++) {
    free.push(await speed(false));
    constrained.push(await speed(true));
  }
  completion.dispose({ disposeSequence: false });
  loadedModel.release(sequence);
  const f = median(free);
  const c = median(constrained);
  console.log(
    `decode, ${label}, 200 tokens, median of ${runs}: unconstrained ${f.toFixed(0)} tok/s, call grammar ${c.toFixed(0)} tok/s, overhead ${(((f - c) / f) * 100).toFixed(1)}%`,
  );
}

await decodeOverhead(`tiny test model (${loaded.parameters ?? "?"} params)`, loaded);
const mediumPath = path.join(dir, "medium.gguf");
writeTestModel(mediumPath, {
  seed: 1,
  embeddingLength: 512,
  blockCount: 8,
  headCount: 8,
  feedForwardLength: 1408,
});
const medium = createLlamaModel({
  modelPath: mediumPath,
  threads: 1,
  gpu: false,
  maxTokens: 64,
  temperature: 0,
});
const mediumLoaded = await medium.load();
await decodeOverhead(`26M-parameter model (${mediumLoaded.parameters ?? "?"} params)`, mediumLoaded);

// 2. Loop latency per step vs raw promptWithMeta (same model, same max tokens, no tools, greedy).
const raw: number[] = [];
const rawSequence = await loaded.acquire();
for (let i = 0; i < runs + 1; i++) {
  // No default system prompt: the loop's request has none either, so both evaluate the same prompt.
  const session = new LlamaChatSession({ contextSequence: rawSequence, systemPrompt: "" });
  const started = performance.now();
  await session.promptWithMeta("Say something.", { maxTokens: 64, temperature: 0 });
  if (i > 0) raw.push(performance.now() - started);
  session.dispose({ disposeSequence: false });
}
loaded.release(rawSequence);
const registry = new ToolRegistry();
const agent = createAgent({ model, tools: registry, toolChoice: "none", limits: { maxSteps: 1 } });
const loop: number[] = [];
for (let i = 0; i < runs + 1; i++) {
  const started = performance.now();
  await agent.run("Say something.").result;
  if (i > 0) loop.push(performance.now() - started);
}
await agent.close();
const r = median(raw);
const l = median(loop);
console.log(
  `one step, 64 tokens, median of ${runs}: raw promptWithMeta ${r.toFixed(1)} ms, agent loop ${l.toFixed(1)} ms, added ${(l - r).toFixed(1)} ms per step`,
);
rmSync(dir, { recursive: true, force: true });
process.exit(0);
