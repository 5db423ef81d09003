import path from "node:path";
import type { LanguageModelV3 } from "@ai-sdk/provider";
import type { LanguageModel } from "../core/language-model.js";
import type { LlamaModelOptions } from "../models/llama/llama-language-model.js";
import { toAiSdkModel } from "./to-ai-sdk-model.js";

/**
 * A GGUF model run in-process by node-llama-cpp (`toolbridge/llama`), as an AI SDK language model:
 * `streamText({ model: llama("./model.gguf"), tools })`. Tool calls are grammar-constrained — node-llama-cpp's
 * function calling in `native` mode, a text protocol with a JSON-Schema grammar on the call body in `text` mode — and
 * `toolChoice` `required`/a named tool starts the answer with the call. Options and defaults are `createLlamaModel`'s
 * (mode, protocol, threads, context size, sampling, GPU); a model made for toolbridge (the bundled demo) brings its
 * own from its metadata. Nothing loads until the first call: node-llama-cpp is imported, and the file read, then
 * (once per process and file, shared by every call).
 */
export function llama(
  modelPath: string,
  options: Omit<LlamaModelOptions, "modelPath"> = {},
): LanguageModelV3 {
  return toAiSdkModel(
    async (): Promise<LanguageModel> => {
      // Lazily, as createModel itself loads the llama room: importing toolbridge/ai-sdk loads no native addon.
      const { createModel } = await import("../models/create-model.js");
      return createModel({ ...options, backend: "llama", modelPath });
    },
    { provider: "toolbridge.llama", modelId: options.id ?? path.basename(modelPath) },
  );
}
