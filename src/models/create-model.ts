import type { LanguageModel } from "../core/language-model.js";
import {
  type AnthropicMessagesModelOptions,
  createAnthropicMessagesModel,
} from "./anthropic/anthropic-messages-model.js";
import { modeFromHints, readGgufModelHints } from "./bundled-model.js";
import { chooseProtocol } from "./choose-protocol.js";
import {
  createTextCompletionModel,
  type TextCompletionModelOptions,
} from "./completions/text-completion-model.js";
import { ModelConfigError } from "./model-errors.js";
import { createOpenAIChatModel, type OpenAIChatModelOptions } from "./openai/openai-chat-model.js";
import { withTextProtocol } from "./with-text-protocol.js";

/** A model the agent can drive, with how it takes tools. */
export type RoutedModel = LanguageModel & {
  /**
   * True: the backend passes tools natively (API parameter or node-llama-cpp functions). False: it renders a text
   * protocol and parses its own output. Either way it emits call events; never also set the agent's `protocol`.
   */
  readonly supportsNativeTools: boolean;
};

interface Routing {
  /**
   * Per-model override of the routing: `native` (default where the backend has native tools) or `protocol` (tools
   * as text through `protocol`, for chat servers whose native tool support is missing or broken).
   */
  tools?: "native" | "protocol";
}

export type OpenAIModelSpec = { backend: "openai"; protocol?: string } & OpenAIChatModelOptions & Routing;
export type CompletionsModelSpec = { backend: "completions" } & TextCompletionModelOptions;
export type AnthropicModelSpec = { backend: "anthropic" } & AnthropicMessagesModelOptions;
/** Filled in by the llama backend (src/models/llama): a GGUF file run in-process by node-llama-cpp. */
export type LlamaModelSpec = { backend: "llama"; modelPath: string } & Record<string, unknown>;

export type ModelSpec = OpenAIModelSpec | CompletionsModelSpec | AnthropicModelSpec | LlamaModelSpec;

export const MODEL_BACKENDS = ["openai", "completions", "anthropic", "llama"] as const;

/** Whether a backend takes tools natively when nothing overrides it. */
export function backendSupportsNativeTools(backend: ModelSpec["backend"]): boolean {
  return backend !== "completions";
}

/** What src/models/llama/index.ts exports for this factory. */
interface LlamaModule {
  createLlamaModel(spec: LlamaModelSpec): Promise<RoutedModel> | RoutedModel;
}

/**
 * Makes a model from a spec (config file, CLI flags). Routing: native tools where the backend has them (openai,
 * anthropic, llama), a text protocol otherwise (completions); `tools: "protocol"` forces a protocol on an openai
 * backend whose server mishandles tools.
 */
export async function createModel(spec: ModelSpec): Promise<RoutedModel> {
  switch (spec.backend) {
    case "openai": {
      const { backend: _b, tools, protocol, ...options } = spec;
      const model = createOpenAIChatModel(options);
      if (tools !== "protocol") return model;
      return withTextProtocol(model, chooseProtocol({ protocol, modelName: options.model }), {
        ...(options.maxForcedRetries !== undefined ? { maxForcedRetries: options.maxForcedRetries } : {}),
        ...(options.parallelToolCalls === false ? { parallelToolCalls: false } : {}),
      });
    }
    case "completions": {
      const { backend: _b, ...options } = spec;
      return createTextCompletionModel(options);
    }
    case "anthropic": {
      const { backend: _b, ...options } = spec;
      return createAnthropicMessagesModel(options);
    }
    case "llama": {
      // Loaded lazily: node-llama-cpp is heavy, and the llama backend lives in its own room.
      const specifier = "./llama/index.js";
      let module: LlamaModule;
      try {
        module = (await import(specifier)) as LlamaModule;
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === "ERR_MODULE_NOT_FOUND" || /Cannot find module|Failed to load url/i.test(String(error))) {
          throw new ModelConfigError(
            "The llama backend (local GGUF through node-llama-cpp) is not available in this build.",
          );
        }
        throw error;
      }
      // The GGUF's own hints choose the mode when the caller did not (models/bundled-model.ts).
      const mode = modeFromHints(
        spec.mode as "native" | "text" | undefined,
        await readGgufModelHints(spec.modelPath),
      );
      return module.createLlamaModel(mode === undefined ? spec : { ...spec, mode });
    }
    default: {
      const backend = (spec as { backend?: unknown }).backend;
      throw new ModelConfigError(
        `Unknown model backend ${JSON.stringify(backend)}; use one of ${MODEL_BACKENDS.join(", ")}.`,
      );
    }
  }
}
