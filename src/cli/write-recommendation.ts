import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_CONFIG_FILE, parseConfig } from "../config/load-config.js";
import { type EvalVariant, NATIVE } from "../eval/eval-variant.js";
import { CliError } from "./cli-error.js";
import type { ModelSettings } from "./model-settings.js";

type ModelEntry = Record<string, unknown>;

function sameModel(entry: ModelEntry, settings: ModelSettings, baseDir: string): boolean {
  if (entry.provider !== settings.provider) return false;
  const name = entry.modelName ?? entry.name;
  switch (settings.provider) {
    case "llama":
      return typeof entry.path === "string" && path.resolve(baseDir, entry.path) === settings.path;
    case "openai":
    case "completions":
      return (entry.baseUrl ?? undefined) === settings.baseUrl && (name ?? undefined) === settings.name;
    default:
      return (name ?? undefined) === settings.name;
  }
}

/** The evaluated model as a config entry, its path relative to the config file's folder when inside it. */
function newEntry(settings: ModelSettings, baseDir: string): ModelEntry {
  const entry: ModelEntry = { provider: settings.provider };
  if (settings.path) {
    const relative = path.relative(baseDir, settings.path);
    entry.path = relative.startsWith("..") || path.isAbsolute(relative) ? settings.path : relative;
  }
  if (settings.baseUrl) entry.baseUrl = settings.baseUrl;
  if (settings.name) entry.modelName = settings.name;
  if (settings.chatTemplate) entry.chatTemplate = settings.chatTemplate;
  if (settings.apiKeyEnv) entry.apiKeyEnv = settings.apiKeyEnv;
  return entry;
}

/** The entry's tool routing set to `variant`: native tools, or a protocol (and the grammar, off only when it was). */
function applyVariant(entry: ModelEntry, variant: EvalVariant): ModelEntry {
  const out = { ...entry };
  delete out.grammar;
  if (variant.protocol === NATIVE) {
    delete out.protocol;
    out.nativeTools = true;
  } else if (variant.protocol !== undefined) {
    out.protocol = variant.protocol;
    if (out.provider !== "completions") out.nativeTools = false;
    if (variant.grammar === false) out.grammar = false;
  }
  return out;
}

export interface WrittenRecommendation {
  file: string;
  /** `model` or `models.<name>`. */
  entry: string;
  settings: ModelEntry;
}

/**
 * `eval --recommend`: set the recommended format in the config's entry for the evaluated model (`model`, or the
 * `models.<name>` entry that describes it), creating `model` when the file has none. The result is checked as a whole
 * config before it is written (atomically); when `model` describes another model, nothing is changed.
 */
export function writeRecommendation(input: {
  configPath?: string;
  cwd?: string;
  settings: ModelSettings;
  variant: EvalVariant;
}): WrittenRecommendation {
  const cwd = input.cwd ?? process.cwd();
  const file = path.resolve(cwd, input.configPath ?? DEFAULT_CONFIG_FILE);
  const baseDir = path.dirname(file);
  let config: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      config = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
    } catch (error) {
      throw new CliError(
        `--recommend: cannot read ${file} as JSON (${(error as Error).message}); nothing was written.`,
      );
    }
    if (typeof config !== "object" || config === null || Array.isArray(config))
      throw new CliError(`--recommend: ${file} is not a JSON object; nothing was written.`);
  }
  const { settings } = input;
  let where = "model";
  const model = config.model as ModelEntry | undefined;
  const named = (config.models ?? {}) as Record<string, ModelEntry>;
  const namedMatch = Object.entries(named).find(([, entry]) => sameModel(entry, settings, baseDir));
  let written: ModelEntry;
  if (model && sameModel(model, settings, baseDir)) {
    written = applyVariant(model, input.variant);
    config.model = written;
  } else if (namedMatch) {
    where = `models.${namedMatch[0]}`;
    written = applyVariant(namedMatch[1], input.variant);
    config.models = { ...named, [namedMatch[0]]: written };
  } else if (model === undefined) {
    written = applyVariant(newEntry(settings, baseDir), input.variant);
    config.model = written;
  } else {
    throw new CliError(
      `--recommend: the model in ${file} is another one (${String(model.path ?? model.modelName ?? model.name ?? model.provider)}), not the model evaluated; nothing was written. Name the evaluated model there, or set ${JSON.stringify(applyVariant({}, input.variant))} on its entry yourself.`,
    );
  }
  // The whole file must still be a valid config, or it is not written.
  parseConfig(config, file, baseDir);
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(config, null, 2)}\n`);
  renameSync(tmp, file);
  return { file, entry: where, settings: written };
}
