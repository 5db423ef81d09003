import { readFileSync } from "node:fs";
import type { LanguageModel } from "../core/language-model.js";
import type { ChatTemplateSource } from "../models/chat-template/load-chat-template.js";
import type { LlamaModelSpec, ModelSpec } from "../models/create-model.js";
import { ModelConfigError } from "../models/model-errors.js";
import { createReplayModelFromFile, ReplayError } from "../models/replay-model.js";
import { ProtocolNotImplementedError, UnknownProtocolError } from "../protocols/protocol-errors.js";
import { CliError } from "./cli-error.js";
import { DEFAULT_ANTHROPIC_MODEL, type ModelSettings } from "./model-options.js";

export interface CliModel {
  model: LanguageModel;
  /** True when tools reach the model natively, false when through a text protocol, undefined for replay. */
  nativeTools?: boolean;
}

export interface CreateCliModelOptions {
  env?: Readonly<Record<string, string | undefined>>;
  /** GGUF load progress, 0..1. */
  onLoadProgress?: (progress: number) => void;
  /** Recoveries a backend made on its own (e.g. a protocol switch on a markup-stripping server). */
  onWarning?: (message: string) => void;
}

/**
 * Routing (models issue, item 5): native tools where the backend has them, a text protocol otherwise. `nativeTools`
 * decides when set; otherwise naming a `protocol` asks for text-protocol mode; otherwise the backend's default.
 */
export function wantsTextProtocol(settings: ModelSettings): boolean {
  if (settings.nativeTools !== undefined) return !settings.nativeTools;
  return settings.protocol !== undefined || settings.provider === "completions";
}

function templateSource(spec: string): ChatTemplateSource {
  if (/\.gguf$/i.test(spec)) return { gguf: spec };
  if (/\.json$/i.test(spec)) return { tokenizerConfig: spec };
  if (/\.jinja$/i.test(spec)) {
    try {
      return { template: readFileSync(spec, "utf8") };
    } catch (error) {
      throw new CliError(`Cannot read the chat template ${spec}: ${(error as Error).message}`);
    }
  }
  return { builtin: spec };
}

async function loadProtocol(id: string) {
  const { getProtocol } = await import("../protocols/protocol-registry.js");
  return getProtocol(id);
}

/** The spec the models room's `createModel` takes, for a resolved CLI setting. */
export function toModelSpec(settings: ModelSettings, options: CreateCliModelOptions = {}): ModelSpec {
  const env = options.env ?? process.env;
  const apiKey = settings.apiKeyEnv ? env[settings.apiKeyEnv] : undefined;
  const text = wantsTextProtocol(settings);
  const common = {
    ...(settings.maxTokens !== undefined ? { maxTokens: settings.maxTokens } : {}),
    ...(apiKey ? { apiKey } : {}),
  };
  switch (settings.provider) {
    case "llama": {
      const spec: LlamaModelSpec = { backend: "llama", modelPath: settings.path as string };
      if (settings.nativeTools !== undefined || settings.protocol !== undefined)
        spec.mode = text ? "text" : "native";
      if (settings.protocol !== undefined) spec.protocol = settings.protocol;
      if (settings.threads !== undefined) spec.threads = settings.threads;
      if (settings.copyArguments !== undefined) spec.copyArguments = settings.copyArguments;
      if (settings.copyWords !== undefined) spec.copyWords = settings.copyWords;
      if (settings.grammar !== undefined) spec.grammar = settings.grammar;
      if (settings.seed !== undefined) spec.seed = settings.seed;
      if (settings.maxTokens !== undefined) spec.maxTokens = settings.maxTokens;
      if (options.onLoadProgress) spec.onLoadProgress = options.onLoadProgress;
      return spec;
    }
    case "openai":
      return {
        backend: "openai",
        model: settings.name as string,
        ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
        ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
        ...(text ? { tools: "protocol" as const } : {}),
        ...(settings.protocol ? { protocol: settings.protocol } : {}),
        ...common,
      };
    case "completions":
      return {
        backend: "completions",
        baseURL: settings.baseUrl as string,
        ...(settings.name ? { model: settings.name } : {}),
        ...(settings.chatTemplate ? { chatTemplate: templateSource(settings.chatTemplate) } : {}),
        ...(settings.protocol ? { protocol: settings.protocol } : {}),
        ...(settings.seed !== undefined ? { seed: settings.seed } : {}),
        ...(options.onWarning ? { onWarning: options.onWarning } : {}),
        ...common,
      };
    case "anthropic":
      return {
        backend: "anthropic",
        model: settings.name ?? DEFAULT_ANTHROPIC_MODEL,
        ...(settings.baseUrl ? { baseURL: settings.baseUrl } : {}),
        ...common,
      };
    case "replay":
      throw new CliError("The replay model is not built through createModel.");
  }
}

/** Build the model a CLI run uses. Configuration problems become usage errors (exit 2) with the backend's message. */
export async function createCliModel(
  settings: ModelSettings,
  options: CreateCliModelOptions = {},
): Promise<CliModel> {
  try {
    if (settings.provider === "replay") {
      // Its `{"text": …}` turns are read with the protocol, as a text-only backend reads its output.
      const protocol = settings.protocol ? await loadProtocol(settings.protocol) : undefined;
      return { model: createReplayModelFromFile(settings.path as string, protocol ? { protocol } : {}) };
    }
    const text = wantsTextProtocol(settings);
    // Loaded on demand: the replay model needs none of the backends (nor the protocols room behind them).
    const { createModel } = await import("../models/create-model.js");
    const model = await createModel(toModelSpec(settings, options));
    if (settings.provider === "anthropic" && text) {
      // The Messages API always has native tools; a text protocol is still possible on top of plain chat.
      const { withTextProtocol } = await import("../models/with-text-protocol.js");
      const protocol = await import("../protocols/protocol-registry.js");
      return {
        model: withTextProtocol(model, protocol.getProtocol(settings.protocol ?? "hermes")),
        nativeTools: false,
      };
    }
    const loadable = model as { load?: () => Promise<unknown> };
    if (settings.provider === "llama" && typeof loadable.load === "function") {
      // Load now, not at the first question: the progress display belongs to startup, and so does a bad file.
      try {
        await loadable.load();
      } catch (error) {
        if (error instanceof ModelConfigError) throw error;
        throw new CliError(`Could not load the GGUF model ${settings.path}: ${(error as Error).message}`);
      }
    }
    const native = (model as { supportsNativeTools?: boolean }).supportsNativeTools;
    return native === undefined ? { model } : { model, nativeTools: native };
  } catch (error) {
    // A bad setting (no such file, unknown protocol or template, missing key) is the user's to fix: exit 2.
    if (
      error instanceof ModelConfigError ||
      error instanceof ReplayError ||
      error instanceof UnknownProtocolError ||
      error instanceof ProtocolNotImplementedError
    ) {
      throw new CliError(error.message);
    }
    throw error;
  }
}
