import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { MODEL_PROVIDERS, type ModelConfig, type ModelProvider } from "../config/model-config-schema.js";
import type { ToolChoice } from "../core/language-model.js";
import { CliError } from "./cli-error.js";
import { defaultModelSettings } from "./default-model.js";
import type { CliModelProvider, ModelSettings } from "./model-settings.js";

export type { CliModelProvider, ModelSettings } from "./model-settings.js";

/** The model flags `run` and `chat` share, as commander parses them. */
export interface ModelFlags {
  model?: string;
  baseUrl?: string;
  api?: string;
  modelName?: string;
  anthropic?: boolean;
  chatTemplate?: string;
  protocol?: string;
  nativeTools?: boolean;
  toolChoice?: string;
  seed?: string;
  maxTokens?: string;
  threads?: string;
}

export const DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5";

/** Add the shared model flags to a command. */
export function addModelOptions(command: Command): Command {
  return command
    .option("--model <spec>", "a GGUF file to run in-process, or replay:<file.jsonl> (scripted turns)")
    .option("--base-url <url>", "an OpenAI-compatible server, e.g. http://localhost:11434/v1")
    .option(
      "--api <kind>",
      "with --base-url: chat (/v1/chat/completions, default) or completions (text-only)",
    )
    .option("--model-name <name>", "the model name the server knows (--base-url, --anthropic)")
    .option(
      "--anthropic",
      `Anthropic's Messages API (ANTHROPIC_API_KEY; default model ${DEFAULT_ANTHROPIC_MODEL})`,
    )
    .option(
      "--chat-template <name|file>",
      "--api completions: built-in template name, tokenizer_config.json or .gguf",
    )
    .option("--protocol <id>", "tool calls as text in this format (e.g. hermes) instead of native tools")
    .option(
      "--native-tools",
      "use the backend's native tool calling even when --protocol or config says otherwise",
    )
    .option("--no-native-tools", "always use a text tool-call protocol")
    .option("--tool-choice <choice>", "auto | required | none | <tool name>")
    .option("--seed <n>", "sampling seed")
    .option("--max-tokens <n>", "most tokens per model turn")
    .option("--threads <n>", "CPU threads for a GGUF model (default: chosen from the cores available)");
}

/**
 * Every model setting, by the name it has in each place (flags over environment over config file):
 *
 * | flag                 | environment               | config `model.…`                       |
 * |----------------------|---------------------------|----------------------------------------|
 * | --model <file.gguf>  | TOOLBRIDGE_MODEL          | provider "llama", path                 |
 * | --base-url <url>     | TOOLBRIDGE_BASE_URL       | provider "openai", baseUrl             |
 * | --api completions    | TOOLBRIDGE_API            | provider "completions"                 |
 * | --anthropic          | TOOLBRIDGE_PROVIDER       | provider "anthropic"                   |
 * | --model-name <name>  | TOOLBRIDGE_MODEL_NAME     | name                                   |
 * | --chat-template <t>  | TOOLBRIDGE_CHAT_TEMPLATE  | chatTemplate                           |
 * | --protocol <id>      | TOOLBRIDGE_PROTOCOL       | protocol                               |
 * | --[no-]native-tools  | TOOLBRIDGE_NATIVE_TOOLS   | nativeTools                            |
 * | --tool-choice <c>    | TOOLBRIDGE_TOOL_CHOICE    | toolChoice                             |
 * | --max-tokens <n>     | TOOLBRIDGE_MAX_TOKENS     | maxTokens                              |
 * | --seed <n>           | TOOLBRIDGE_SEED           | seed                                   |
 * | --threads <n>        | TOOLBRIDGE_THREADS        | threads                                |
 * | (API key)            | OPENAI_API_KEY / ANTHROPIC_API_KEY | apiKeyEnv (another variable's name) |
 */
/** One source of settings: the flags, the environment or the config file. */
interface Layer {
  source: string;
  provider?: CliModelProvider;
  api?: "chat" | "completions";
  fields: Omit<Partial<ModelSettings>, "provider">;
}

/** Fields that describe one particular model: inherited from a lower layer only when it names the same provider. */
const MODEL_SPECIFIC = [
  "path",
  "baseUrl",
  "name",
  "chatTemplate",
  "protocol",
  "nativeTools",
  "threads",
  "apiKeyEnv",
] as const;
/** Fields that make sense for any model. */
const GENERAL = ["toolChoice", "maxTokens", "seed"] as const;

export function parseToolChoice(text: string, where = "--tool-choice"): ToolChoice {
  const value = text.trim();
  if (value === "auto" || value === "required" || value === "none") return value;
  if (/^[A-Za-z0-9_.-]{1,128}$/.test(value)) return { name: value };
  throw new CliError(`${where} must be auto, required, none or a tool name, got "${text}".`);
}

function integer(value: string | undefined, where: string, min: number): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new CliError(
      `${where} must be ${min === 0 ? "a non-negative" : "a positive"} integer, got "${value}".`,
    );
  }
  return n;
}

function boolean(value: string | undefined, where: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new CliError(`${where} must be true or false, got "${value}".`);
}

function api(value: string | undefined, where: string): "chat" | "completions" | undefined {
  if (value === undefined) return undefined;
  if (value === "chat" || value === "completions") return value;
  throw new CliError(`${where} must be chat or completions, got "${value}".`);
}

function url(value: string, where: string): string {
  try {
    const parsed = new URL(value);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error("not http");
  } catch {
    throw new CliError(`${where} must be an http(s) URL such as http://localhost:8080/v1, got "${value}".`);
  }
  return value;
}

/** `--model` / TOOLBRIDGE_MODEL: a GGUF path or `replay:<file>`. */
function modelSpec(spec: string, where: string, cwd: string): { provider: CliModelProvider; path: string } {
  if (spec.startsWith("replay:")) {
    const file = spec.slice("replay:".length);
    if (!file) throw new CliError(`${where} replay:<file.jsonl> needs a file.`);
    return { provider: "replay", path: path.resolve(cwd, file) };
  }
  if (/^https?:\/\//.test(spec)) {
    throw new CliError(`${where} takes a GGUF file; for a server use --base-url ${spec} (and --model-name).`);
  }
  return { provider: "llama", path: path.resolve(cwd, spec) };
}

/** A chat template is a built-in name (`qwen2.5`) or a file (tokenizer_config.json, .gguf), resolved to absolute. */
function templateSpec(value: string, baseDir: string): string {
  return /[\\/]|\.(json|gguf|jinja)$/i.test(value) ? path.resolve(baseDir, value) : value;
}

function set<K extends keyof Layer["fields"]>(
  layer: Layer,
  key: K,
  value: Layer["fields"][K] | undefined,
): void {
  if (value !== undefined) layer.fields[key] = value;
}

export function layerFromFlags(flags: ModelFlags, cwd: string = process.cwd()): Layer {
  const layer: Layer = { source: "flags", fields: {} };
  const chosen = [
    flags.model !== undefined && "--model",
    flags.baseUrl !== undefined && "--base-url",
    flags.anthropic && "--anthropic",
  ].filter(Boolean);
  if (chosen.length > 1) {
    throw new CliError(`${chosen.join(" and ")} each choose a model; give only one of them.`);
  }
  if (flags.model !== undefined) {
    const spec = modelSpec(flags.model, "--model", cwd);
    layer.provider = spec.provider;
    layer.fields.path = spec.path;
  }
  const kind = api(flags.api, "--api");
  if (flags.baseUrl !== undefined) {
    layer.provider = kind === "completions" ? "completions" : "openai";
    layer.fields.baseUrl = url(flags.baseUrl, "--base-url");
  } else if (kind) {
    layer.api = kind;
  }
  if (flags.anthropic) layer.provider = "anthropic";
  set(layer, "name", flags.modelName);
  if (flags.chatTemplate !== undefined) layer.fields.chatTemplate = templateSpec(flags.chatTemplate, cwd);
  set(layer, "protocol", flags.protocol);
  set(layer, "nativeTools", flags.nativeTools);
  if (flags.toolChoice !== undefined) layer.fields.toolChoice = parseToolChoice(flags.toolChoice);
  set(layer, "seed", integer(flags.seed, "--seed", 0));
  set(layer, "maxTokens", integer(flags.maxTokens, "--max-tokens", 1));
  set(layer, "threads", integer(flags.threads, "--threads", 1));
  return layer;
}

/**
 * toolbridge's own variables choose a model like the flags do. OPENAI_API_KEY / ANTHROPIC_API_KEY / OPENAI_BASE_URL /
 * ANTHROPIC_BASE_URL are read by the backends themselves; they never choose a model on their own, so a key set for
 * another program does not silently send chats to a paid API.
 */
export function layerFromEnv(
  env: Readonly<Record<string, string | undefined>>,
  cwd: string = process.cwd(),
): Layer {
  const layer: Layer = { source: "environment", fields: {} };
  const get = (name: string) => {
    const value = env[name]?.trim();
    return value ? value : undefined;
  };
  const model = get("TOOLBRIDGE_MODEL");
  const baseUrl = get("TOOLBRIDGE_BASE_URL");
  const provider = get("TOOLBRIDGE_PROVIDER");
  const chosen = [
    model && "TOOLBRIDGE_MODEL",
    baseUrl && "TOOLBRIDGE_BASE_URL",
    provider && "TOOLBRIDGE_PROVIDER",
  ].filter(Boolean);
  if (chosen.length > 1)
    throw new CliError(`${chosen.join(" and ")} each choose a model; set only one of them.`);
  const kind = api(get("TOOLBRIDGE_API"), "TOOLBRIDGE_API");
  if (model) {
    const spec = modelSpec(model, "TOOLBRIDGE_MODEL", cwd);
    layer.provider = spec.provider;
    layer.fields.path = spec.path;
  } else if (baseUrl) {
    layer.provider = kind === "completions" ? "completions" : "openai";
    layer.fields.baseUrl = url(baseUrl, "TOOLBRIDGE_BASE_URL");
  } else if (provider) {
    if (!(MODEL_PROVIDERS as readonly string[]).includes(provider)) {
      throw new CliError(
        `TOOLBRIDGE_PROVIDER must be one of ${MODEL_PROVIDERS.join(", ")}, got "${provider}".`,
      );
    }
    layer.provider = provider as ModelProvider;
  }
  if (kind && !baseUrl) layer.api = kind;
  set(layer, "name", get("TOOLBRIDGE_MODEL_NAME"));
  set(layer, "protocol", get("TOOLBRIDGE_PROTOCOL"));
  const choice = get("TOOLBRIDGE_TOOL_CHOICE");
  if (choice) layer.fields.toolChoice = parseToolChoice(choice, "TOOLBRIDGE_TOOL_CHOICE");
  set(layer, "maxTokens", integer(get("TOOLBRIDGE_MAX_TOKENS"), "TOOLBRIDGE_MAX_TOKENS", 1));
  set(layer, "seed", integer(get("TOOLBRIDGE_SEED"), "TOOLBRIDGE_SEED", 0));
  set(layer, "threads", integer(get("TOOLBRIDGE_THREADS"), "TOOLBRIDGE_THREADS", 1));
  set(layer, "nativeTools", boolean(get("TOOLBRIDGE_NATIVE_TOOLS"), "TOOLBRIDGE_NATIVE_TOOLS"));
  const template = get("TOOLBRIDGE_CHAT_TEMPLATE");
  if (template) layer.fields.chatTemplate = templateSpec(template, cwd);
  return layer;
}

/** The config file's `model` section; its relative paths are resolved against the file's folder. */
export function layerFromConfig(model: ModelConfig | undefined, configFile: string | undefined): Layer {
  const layer: Layer = { source: configFile ?? "config", fields: {} };
  if (!model) return layer;
  const dir = configFile ? path.dirname(configFile) : process.cwd();
  layer.provider = model.provider;
  const { provider: _provider, ...rest } = model;
  Object.assign(layer.fields, rest);
  if (model.provider === "llama") layer.fields.path = path.resolve(dir, model.path);
  if (model.provider === "completions" && model.chatTemplate) {
    layer.fields.chatTemplate = templateSpec(model.chatTemplate, dir);
  }
  return layer;
}

function family(provider: CliModelProvider): string {
  return provider === "completions" ? "openai" : provider;
}

/**
 * Merge the layers: flags over environment over config. The first layer that chooses a model decides the provider;
 * a lower layer's model-specific settings (name, path, protocol…) apply only when it describes the same provider,
 * while general ones (toolChoice, maxTokens, seed) always do. Undefined when nothing chooses a model.
 */
export function mergeModelLayers(layers: readonly Layer[]): ModelSettings | undefined {
  const chooser = layers.find((l) => l.provider !== undefined);
  if (!chooser?.provider) return undefined;
  let provider = chooser.provider;
  const apiLayer = layers.find((l) => l.api !== undefined);
  if (apiLayer && (provider === "openai" || provider === "completions")) {
    provider = apiLayer.api === "completions" ? "completions" : "openai";
  } else if (apiLayer && layers.indexOf(apiLayer) <= layers.indexOf(chooser)) {
    throw new CliError(
      `--api ${apiLayer.api} applies to an OpenAI-compatible server (--base-url), not to ${provider}.`,
    );
  }
  const settings: ModelSettings = { provider };
  const compatible = (l: Layer) => l.provider === undefined || family(l.provider) === family(provider);
  for (const key of MODEL_SPECIFIC) {
    const from = layers.find((l) => compatible(l) && l.fields[key] !== undefined);
    if (from) (settings as unknown as Record<string, unknown>)[key] = from.fields[key];
  }
  for (const key of GENERAL) {
    const from = layers.find((l) => l.fields[key] !== undefined);
    if (from) (settings as unknown as Record<string, unknown>)[key] = from.fields[key];
  }
  return settings;
}

export interface ResolveModelInput {
  flags: ModelFlags;
  env?: Readonly<Record<string, string | undefined>>;
  config?: ModelConfig | undefined;
  configFile?: string | undefined;
  cwd?: string;
}

function layersOf(input: ResolveModelInput): Layer[] {
  const cwd = input.cwd ?? process.cwd();
  return [
    layerFromFlags(input.flags, cwd),
    layerFromEnv(input.env ?? process.env, cwd),
    layerFromConfig(input.config, input.configFile),
  ];
}

/** Flags over environment over config file; undefined when none of them names a model. */
export function resolveModelSettings(input: ResolveModelInput): ModelSettings | undefined {
  const settings = mergeModelLayers(layersOf(input));
  if (settings) checkModelSettings(settings, input.env ?? process.env);
  return settings;
}

/** Problems a user can fix before anything is loaded or contacted. */
export function checkModelSettings(
  settings: ModelSettings,
  env: Readonly<Record<string, string | undefined>> = process.env,
): void {
  switch (settings.provider) {
    case "llama":
    case "replay":
      if (!settings.path || !existsSync(settings.path)) {
        throw new CliError(
          settings.provider === "llama"
            ? `GGUF file not found: ${settings.path}. Pass the path of a .gguf model file with --model.`
            : `Replay file not found: ${settings.path}.`,
        );
      }
      break;
    case "openai":
      if (!settings.name) {
        throw new CliError(
          "An OpenAI-compatible server needs the model name it serves: add --model-name <name> (e.g. qwen2.5:7b for Ollama; any name for llama-server), or TOOLBRIDGE_MODEL_NAME.",
        );
      }
      break;
    case "completions":
      if (!settings.baseUrl)
        throw new CliError("--api completions needs the server's address: --base-url <url>.");
      if (settings.nativeTools === true) {
        throw new CliError(
          "A /v1/completions server is text-only: it has no native tools. Drop --native-tools.",
        );
      }
      break;
    case "anthropic":
      break;
  }
  if (settings.apiKeyEnv !== undefined && !env[settings.apiKeyEnv]) {
    throw new CliError(`The API key variable ${settings.apiKeyEnv} (apiKeyEnv in the config) is not set.`);
  }
}

/**
 * What to say when no model is configured: every way to point toolbridge at one. (When a bundled default model
 * exists, `defaultModelSettings` returns it instead and this is not reached.)
 */
export function noModelMessage(command: string): string {
  return [
    "no model configured. Point toolbridge at one:",
    `  a GGUF file, run in-process:       toolbridge ${command} --model ./model.gguf`,
    `  an OpenAI-compatible server:       toolbridge ${command} --base-url http://localhost:11434/v1 --model-name qwen2.5:7b`,
    "    (a text-only /v1/completions server such as mlx_lm.server: add --api completions; key from OPENAI_API_KEY)",
    `  Anthropic:                         ANTHROPIC_API_KEY=… toolbridge ${command} --anthropic [--model-name ${DEFAULT_ANTHROPIC_MODEL}]`,
    'or once in toolbridge.config.json:   {"model": {"provider": "llama", "path": "models/model.gguf"}}',
    "                                     (providers: llama, openai, completions, anthropic)",
    "or in the environment:               TOOLBRIDGE_MODEL=<file.gguf>, or TOOLBRIDGE_BASE_URL=<url> with TOOLBRIDGE_MODEL_NAME=<name>,",
    "                                     or TOOLBRIDGE_PROVIDER=anthropic",
  ].join("\n");
}

/**
 * Resolve the model, else the bundled default (when there is one), else stop with `noModelMessage` (exit 2). The
 * default is the lowest layer, below the config file: every setting the flags, environment or config give that does
 * not choose a model (`--tool-choice`, `--max-tokens`, `--seed`, `--protocol`, `--threads`…) applies to it too.
 */
export function requireModelSettings(
  input: ResolveModelInput,
  command: string,
  fallback: () => ModelSettings | undefined = defaultModelSettings,
): ModelSettings {
  const layers = layersOf(input);
  let settings = mergeModelLayers(layers);
  if (!settings) {
    const fallbackSettings = fallback();
    if (!fallbackSettings) throw new CliError(noModelMessage(command), 2);
    const { provider, ...fields } = fallbackSettings;
    settings = mergeModelLayers([...layers, { source: "default", provider, fields }]) as ModelSettings;
  }
  checkModelSettings(settings, input.env ?? process.env);
  return settings;
}

/** A short name for progress lines: the file for local models, the model name for servers. */
export function modelLabel(settings: ModelSettings): string {
  if (settings.provider === "llama" || settings.provider === "replay")
    return path.basename(settings.path ?? "");
  return settings.name ?? settings.provider;
}
