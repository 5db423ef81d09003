import path from "node:path";
import type { ToolbridgeConfig } from "../config/config-schema.js";
import type { ModelConfig } from "../config/model-config-schema.js";
import { BUNDLED_MODEL_TOOLS, bundledModelPath, hasBundledModel } from "../models/bundled-model.js";
import {
  DEFAULT_LOCAL_MAX_CONCURRENT,
  DEFAULT_REMOTE_MAX_CONCURRENT,
  ModelCatalog,
  type ModelCatalogEntry,
} from "../server/model-catalog.js";
import { CliError } from "./cli-error.js";
import { createCliModel } from "./create-cli-model.js";
import { isBundledModel } from "./default-model.js";
import {
  checkModelSettings,
  layerFromConfig,
  type ModelFlags,
  type ModelSettings,
  mergeModelLayers,
  resolveModelSettings,
} from "./model-options.js";

/** What `/v1/models` calls the bundled demo model when nothing else is configured. */
export const BUNDLED_MODEL_NAME = "toolbridge-demo";

/**
 * The demo model's runs are offered only the tools it was trained on, unless the config names tools to allow — the
 * rule `run` and `chat` follow (offered a filesystem tool it never saw, it writes nonsense calls).
 */
function demoTools(settings: ModelSettings, config: ToolbridgeConfig): readonly string[] | undefined {
  return config.tools?.allow === undefined && isBundledModel(settings) ? BUNDLED_MODEL_TOOLS : undefined;
}

function entry(
  settings: ModelSettings,
  limits: Pick<ModelConfig, "maxConcurrent" | "maxQueued">,
  runTools?: readonly string[],
): ModelCatalogEntry {
  const local = settings.provider === "llama";
  return {
    ...(runTools ? { runTools } : {}),
    // Built at the first request for it: a GGUF loads then (once, shared by every request), a server is contacted then.
    create: async (onLoadProgress) => (await createCliModel(settings, { onLoadProgress })).model,
    maxConcurrent:
      limits.maxConcurrent ?? (local ? DEFAULT_LOCAL_MAX_CONCURRENT : DEFAULT_REMOTE_MAX_CONCURRENT),
    ...(limits.maxQueued !== undefined ? { maxQueued: limits.maxQueued } : {}),
    ownedBy: settings.provider,
  };
}

/** The name the single `model` setting gets at /v1: the GGUF's file name or the server's model name. */
function nameOf(settings: ModelSettings): string {
  const raw =
    settings.provider === "llama"
      ? path.basename(settings.path ?? "", ".gguf")
      : (settings.name ?? settings.provider);
  const name = raw.replace(/[^A-Za-z0-9._:/-]/g, "-").replace(/^[^A-Za-z0-9]+/, "");
  return name || "default";
}

/**
 * The models `serve` offers: the `models` section by name, plus the model `run` would use (its flags, the
 * environment, then the config's `model` key) as the default; with none of them, the bundled demo model. Undefined
 * when there is no model at all (then /v1 is off; /mcp still works). Settings are checked now — a missing GGUF or
 * API key variable stops `serve` at startup with the key named — but nothing is loaded until asked for.
 */
export function serveModelCatalog(input: {
  config: ToolbridgeConfig;
  configFile: string | undefined;
  /** serve's model flags (`--model`, `--base-url`, …): over the environment and the config's `model`, as for `run`. */
  flags?: ModelFlags;
  env?: Readonly<Record<string, string | undefined>>;
}): ModelCatalog | undefined {
  const env = input.env ?? process.env;
  const entries: Record<string, ModelCatalogEntry> = {};
  for (const [name, model] of Object.entries(input.config.models ?? {})) {
    const settings = mergeModelLayers([layerFromConfig(model, input.configFile)]) as ModelSettings;
    try {
      checkModelSettings(settings, env);
    } catch (error) {
      throw new CliError(
        `\`models.${name}\` in ${input.configFile ?? "the config"}: ${(error as Error).message}`,
      );
    }
    entries[name] = entry(settings, model, demoTools(settings, input.config));
  }
  let defaultName: string | undefined;
  const main = resolveModelSettings({
    flags: input.flags ?? {},
    env,
    config: input.config.model,
    configFile: input.configFile,
  });
  if (main) {
    defaultName = nameOf(main);
    if (defaultName in entries) defaultName = "default";
    entries[defaultName] = entry(main, input.config.model ?? {}, demoTools(main, input.config));
  } else if (Object.keys(entries).length === 0 && hasBundledModel()) {
    defaultName = BUNDLED_MODEL_NAME;
    const bundled: ModelSettings = { provider: "llama", path: bundledModelPath(), nativeTools: false };
    entries[defaultName] = entry(bundled, {}, demoTools(bundled, input.config));
  }
  if (Object.keys(entries).length === 0) return undefined;
  return new ModelCatalog(entries, defaultName);
}
