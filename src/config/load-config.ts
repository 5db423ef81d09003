import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import type { z } from "zod";
import { ToolbridgeError } from "../core/toolbridge-error.js";
import { configSchema, type ToolbridgeConfig } from "./config-schema.js";

export const DEFAULT_CONFIG_FILE = "toolbridge.config.json";

export class ConfigError extends ToolbridgeError {
  override name = "ConfigError";
}

export interface LoadedConfig {
  config: ToolbridgeConfig;
  /** The file it came from; undefined when none was found and defaults apply. */
  file: string | undefined;
}

function formatPath(segments: readonly PropertyKey[]): string {
  let out = "";
  for (const segment of segments) {
    if (typeof segment === "number") out += `[${segment}]`;
    else out += out === "" ? String(segment) : `.${String(segment)}`;
  }
  return out || "(top level)";
}

function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    if (issue.code === "unrecognized_keys") {
      const where = issue.path.length ? ` in \`${formatPath(issue.path)}\`` : "";
      return `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => `\`${k}\``).join(", ")}${where}`;
    }
    if (issue.code === "invalid_key") {
      // A record's key (a model name): say what the key must look like, not zod's "Invalid key in record".
      const reason = issue.issues[0]?.message ?? issue.message;
      return `\`${formatPath(issue.path)}\`: the name is not allowed: ${reason}`;
    }
    return `\`${formatPath(issue.path)}\`: ${issue.message}`;
  });
}

/** Validate a parsed config object; paths inside it (filesystem roots) are resolved against `baseDir`. */
export function parseConfig(raw: unknown, source: string, baseDir: string): ToolbridgeConfig {
  const parsed = configSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ConfigError(
      `${source} is not a valid toolbridge config:\n${describeIssues(parsed.error)
        .map((line) => `- ${line}`)
        .join("\n")}`,
    );
  }
  const config = parsed.data;
  // A path (not a URL) is the config file's neighbour, wherever the command runs.
  if (config.db !== undefined && !/^[a-z][a-z0-9+.-]*:\/\//i.test(config.db))
    config.db = path.resolve(baseDir, config.db);
  if (config.filesystem) {
    config.filesystem.roots = config.filesystem.roots.map((root) => path.resolve(baseDir, root));
  }
  return config;
}

/**
 * Load `--config <file>` when given (it must exist), else `toolbridge.config.json` in `cwd` if present, else defaults.
 * Errors name the file and every problem in it; nothing is half-applied.
 */
export function loadConfig(options: { configPath?: string; cwd?: string } = {}): LoadedConfig {
  const cwd = options.cwd ?? process.cwd();
  const file = options.configPath
    ? path.resolve(cwd, options.configPath)
    : path.join(cwd, DEFAULT_CONFIG_FILE);
  if (!existsSync(file)) {
    if (options.configPath) throw new ConfigError(`Config file not found: ${file}`);
    return { config: configSchema.parse({}), file: undefined };
  }
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new ConfigError(`Cannot read config file ${file}: ${(error as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
  return { config: parseConfig(raw, file, path.dirname(file)), file };
}
