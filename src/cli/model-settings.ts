import type { ModelProvider } from "../config/model-config-schema.js";
import type { ToolChoice } from "../core/language-model.js";

/** `replay:<file.jsonl>` is a provider too on the command line: scripted turns, for tests and demos. */
export type CliModelProvider = ModelProvider | "replay";

/**
 * Which model a CLI run uses, fully resolved. Stored with every run (so `runs approve|resume` rebuild the same model
 * in another process), hence no secrets: API keys are read from the environment when the model is built.
 */
export interface ModelSettings {
  provider: CliModelProvider;
  /** llama: the .gguf file; replay: the turns file. Absolute. */
  path?: string;
  /** openai / completions / anthropic server root. */
  baseUrl?: string;
  /** The model name the server knows. */
  name?: string;
  /** completions: built-in template name, tokenizer_config.json or .gguf. */
  chatTemplate?: string;
  /** Tool-call format id; selects text-protocol mode unless `nativeTools` is true. */
  protocol?: string;
  /** Routing override: true = the backend's native tools, false = a text protocol. Default: native where available. */
  nativeTools?: boolean;
  toolChoice?: ToolChoice;
  maxTokens?: number;
  seed?: number;
  threads?: number;
  /** llama, text mode: copy-constrained string arguments (LlamaModelOptions.copyArguments); default by model size. */
  copyArguments?: boolean;
  /** llama, text mode: answers finish the tool result's words they begin (LlamaModelOptions.copyWords); by size. */
  copyWords?: boolean;
  /** llama, text-protocol mode: constrain call bodies with the tools' schemas (default true). */
  grammar?: boolean;
  /** Environment variable holding the API key, instead of OPENAI_API_KEY / ANTHROPIC_API_KEY. */
  apiKeyEnv?: string;
}
