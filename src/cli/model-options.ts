import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { MODEL_PROVIDERS, type ModelConfig, type ModelProvider } from "../config/model-config-schema.js";
import type { ToolChoice } from "../core/language-model.js";
import { CliError } from "./cli-error.js";
import { defaultModelSettings } from "./default-model.js";
import type { CliModelProvider, ModelSettings } from "./model-settings.js";

export type { CliModelProvider, ModelSettings } from "./model-settings.js";

/**
 * Every model setting has one key, spelt the same way in each place it can be given (flags over environment over
 * config file): the flag is the key in kebab case, the variable `TOOLBRIDGE_` and the key in upper snake case, the
 * config file's `model` section the key itself. Three keys choose the model and differ by nature: `model` (a GGUF file
 * or `replay:<file>`) is `path` in the config, whose `provider` names the backend; the flag for `provider` is
 * `--anthropic` (the others are chosen by `--model` and `--base-url`); `api` is the config's provider `completions`.
 *
 * | key          | flag                  | environment               | config `model.…`                  |
 * |--------------|-----------------------|---------------------------|-----------------------------------|
 * | model        | --model <file.gguf>   | TOOLBRIDGE_MODEL          | provider "llama", path            |
 * | baseUrl      | --base-url <url>      | TOOLBRIDGE_BASE_URL       | baseUrl (provider "openai")       |
 * | api          | --api completions     | TOOLBRIDGE_API            | provider "completions"            |
 * | provider     | --anthropic           | TOOLBRIDGE_PROVIDER       | provider                          |
 * | modelName    | --model-name <name>   | TOOLBRIDGE_MODEL_NAME     | modelName (older spelling: name)  |
 * | chatTemplate | --chat-template <t>   | TOOLBRIDGE_CHAT_TEMPLATE  | chatTemplate                      |
 * | protocol     | --protocol <id>       | TOOLBRIDGE_PROTOCOL       | protocol                          |
 * | nativeTools  | --[no-]native-tools   | TOOLBRIDGE_NATIVE_TOOLS   | nativeTools                       |
 * | toolChoice   | --tool-choice <c>     | TOOLBRIDGE_TOOL_CHOICE    | toolChoice                        |
 * | maxTokens    | --max-tokens <n>      | TOOLBRIDGE_MAX_TOKENS     | maxTokens                         |
 * | seed         | --seed <n>            | TOOLBRIDGE_SEED           | seed                              |
 * | threads      | --threads <n>         | TOOLBRIDGE_THREADS        | threads                           |
 * | copyArguments| --[no-]copy-arguments | TOOLBRIDGE_COPY_ARGUMENTS | copyArguments                     |
 * | copyWords    | --[no-]copy-words     | TOOLBRIDGE_COPY_WORDS     | copyWords                         |
 * | grammar      | --[no-]grammar        | TOOLBRIDGE_GRAMMAR        | grammar (provider "llama")        |
 * | apiKeyEnv    | --api-key-env <VAR>   | TOOLBRIDGE_API_KEY_ENV    | apiKeyEnv                         |
 *
 * API keys themselves come from OPENAI_API_KEY / ANTHROPIC_API_KEY, or the variable `apiKeyEnv` names.
 */
export const MODEL_KEYS = [
  "model",
  "baseUrl",
  "api",
  "provider",
  "modelName",
  "chatTemplate",
  "protocol",
  "nativeTools",
  "toolChoice",
  "maxTokens",
  "seed",
  "threads",
  "copyArguments",
  "copyWords",
  "grammar",
  "apiKeyEnv",
] as const;
export type ModelKey = (typeof MODEL_KEYS)[number];

/** One place's model settings by key: text from flags and variables, typed values from the (validated) config. */
export type ModelInput = Partial<Record<ModelKey, unknown>>;

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase();

/** The flag of a key (`--max-tokens`); `provider`'s is `--anthropic`. */
export function modelFlagName(key: ModelKey): string {
  return key === "provider" ? "--anthropic" : `--${kebab(key)}`;
}

/** The environment variable of a key (`TOOLBRIDGE_MAX_TOKENS`). */
export function modelEnvName(key: ModelKey): string {
  return `TOOLBRIDGE_${snake(key)}`;
}

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
  copyArguments?: boolean;
  copyWords?: boolean;
  grammar?: boolean;
  apiKeyEnv?: string;
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
    .option("--threads <n>", "CPU threads for a GGUF model (default: chosen from the cores available)")
    .option(
      "--copy-arguments",
      "GGUF text mode: write string arguments out of the conversation's words (default: on for models under 50M parameters)",
    )
    .option("--no-copy-arguments", "GGUF text mode: let the model write string arguments freely")
    .option(
      "--copy-words",
      "GGUF text mode: in an answer, finish a word of a tool result the model begins (default: on for models under 50M parameters)",
    )
    .option("--no-copy-words", "GGUF text mode: let the model write its answers freely")
    .option(
      "--grammar",
      "a GGUF model in text-protocol mode: constrain call bodies to the tools' schemas (default)",
    )
    .option("--no-grammar", "a GGUF model in text-protocol mode: let the model write calls freely")
    .option(
      "--api-key-env <VAR>",
      "the environment variable holding the API key (default OPENAI_API_KEY/ANTHROPIC_API_KEY)",
    );
}

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
  "copyArguments",
  "copyWords",
  "grammar",
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

function integer(value: unknown, where: string, min: number): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = typeof value === "number" ? value : Number(value);
  if (!Number.isInteger(n) || n < min) {
    throw new CliError(
      `${where} must be ${min === 0 ? "a non-negative" : "a positive"} integer, got "${String(value)}".`,
    );
  }
  return n;
}

function boolean(value: unknown, where: string): boolean | undefined {
  if (value === undefined || typeof value === "boolean") return value;
  if (/^(true|1|yes)$/i.test(String(value))) return true;
  if (/^(false|0|no)$/i.test(String(value))) return false;
  throw new CliError(`${where} must be true or false, got "${String(value)}".`);
}

function toolChoice(value: unknown, where: string): ToolChoice | undefined {
  if (value === undefined) return undefined;
  return typeof value === "string" ? parseToolChoice(value, where) : (value as ToolChoice);
}

function api(value: unknown, where: string): "chat" | "completions" | undefined {
  if (value === undefined) return undefined;
  if (value === "chat" || value === "completions") return value;
  throw new CliError(`${where} must be chat or completions, got "${String(value)}".`);
}

function provider(value: unknown, where: string): CliModelProvider | undefined {
  if (value === undefined) return undefined;
  if (!(MODEL_PROVIDERS as readonly unknown[]).includes(value)) {
    throw new CliError(`${where} must be one of ${MODEL_PROVIDERS.join(", ")}, got "${String(value)}".`);
  }
  return value as ModelProvider;
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

function variableName(value: unknown, where: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== "string" || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(value)) {
    throw new CliError(`${where} must be the name of an environment variable, not the key itself.`);
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

/** Where a place's settings come from and how its keys are named in messages. */
interface Place {
  source: string;
  /** The key as this place spells it, for messages. */
  name: (key: ModelKey) => string;
  /** Relative paths (GGUF, template files) are resolved against this folder. */
  baseDir: string;
  /** `provider` is how this place names its backend, not one more way to choose one (the config file). */
  providerNamesBackend?: boolean;
}

/**
 * The one layer builder: the settings of one place (flags, environment or config file), by the keys of MODEL_KEYS,
 * checked and parsed the same way wherever they come from. `model`, `baseUrl` and `provider` each choose a model: a
 * place may use one of them (the config file names its provider and then its path or server).
 */
export function buildModelLayer(input: ModelInput, place: Place): Layer {
  const layer: Layer = { source: place.source, fields: {} };
  const where = place.name;
  const value = (key: ModelKey) => {
    const v = input[key];
    return typeof v === "string" ? (v.trim() === "" ? undefined : v.trim()) : v;
  };
  const choosers = (["model", "baseUrl", "provider"] as const).filter(
    (key) => value(key) !== undefined && !(key === "provider" && place.providerNamesBackend),
  );
  if (choosers.length > 1) {
    throw new CliError(`${choosers.map(where).join(" and ")} each choose a model; give only one of them.`);
  }
  const named = provider(value("provider"), where("provider"));
  const kind = api(value("api"), where("api"));
  const model = value("model");
  const baseUrl = value("baseUrl");
  if (model !== undefined) {
    const spec = place.providerNamesBackend
      ? { provider: named ?? "llama", path: path.resolve(place.baseDir, String(model)) }
      : modelSpec(String(model), where("model"), place.baseDir);
    layer.provider = spec.provider;
    layer.fields.path = spec.path;
  } else if (baseUrl !== undefined) {
    layer.fields.baseUrl = url(String(baseUrl), where("baseUrl"));
    layer.provider = named ?? (kind === "completions" ? "completions" : "openai");
  } else if (named) {
    layer.provider = named;
  }
  if (kind && baseUrl === undefined) layer.api = kind;
  set(layer, "name", value("modelName") as string | undefined);
  const template = value("chatTemplate");
  if (template !== undefined) layer.fields.chatTemplate = templateSpec(String(template), place.baseDir);
  set(layer, "protocol", value("protocol") as string | undefined);
  set(layer, "nativeTools", boolean(value("nativeTools"), where("nativeTools")));
  set(layer, "toolChoice", toolChoice(value("toolChoice"), where("toolChoice")));
  set(layer, "maxTokens", integer(value("maxTokens"), where("maxTokens"), 1));
  set(layer, "seed", integer(value("seed"), where("seed"), 0));
  set(layer, "threads", integer(value("threads"), where("threads"), 1));
  set(layer, "copyArguments", boolean(value("copyArguments"), where("copyArguments")));
  set(layer, "copyWords", boolean(value("copyWords"), where("copyWords")));
  set(layer, "grammar", boolean(value("grammar"), where("grammar")));
  set(layer, "apiKeyEnv", variableName(value("apiKeyEnv"), where("apiKeyEnv")));
  return layer;
}

export function layerFromFlags(flags: ModelFlags, cwd: string = process.cwd()): Layer {
  const { anthropic, ...rest } = flags;
  return buildModelLayer(
    { ...rest, provider: anthropic ? "anthropic" : undefined },
    { source: "flags", name: modelFlagName, baseDir: cwd },
  );
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
  const input: ModelInput = {};
  for (const key of MODEL_KEYS) input[key] = env[modelEnvName(key)];
  return buildModelLayer(input, { source: "environment", name: modelEnvName, baseDir: cwd });
}

/** The config file's `model` section; its relative paths are resolved against the file's folder. */
export function layerFromConfig(model: ModelConfig | undefined, configFile: string | undefined): Layer {
  const source = configFile ?? "config";
  if (!model) return { source, fields: {} };
  const { provider: backend, ...rest } = model;
  const fields = rest as Record<string, unknown>;
  const input: ModelInput = {
    ...fields,
    provider: backend,
    model: fields.path,
    modelName: fields.modelName ?? fields.name,
  };
  return buildModelLayer(input, {
    source,
    name: (key) => `model.${key === "model" ? "path" : key} in ${source}`,
    baseDir: configFile ? path.dirname(configFile) : process.cwd(),
    providerNamesBackend: true,
  });
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
  if (settings.grammar !== undefined && settings.provider !== "llama" && settings.provider !== "replay") {
    throw new CliError(
      "The call grammar (--grammar / --no-grammar, TOOLBRIDGE_GRAMMAR or grammar in the config) applies to a local GGUF model (--model <file.gguf>) in text-protocol mode; a server's output is only parsed.",
    );
  }
  if (settings.apiKeyEnv !== undefined && !env[settings.apiKeyEnv]) {
    throw new CliError(
      `The API key variable ${settings.apiKeyEnv} (--api-key-env, TOOLBRIDGE_API_KEY_ENV or apiKeyEnv in the config) is not set.`,
    );
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
