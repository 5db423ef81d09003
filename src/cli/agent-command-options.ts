import path from "node:path";
import type { Command } from "commander";
import type { RunLimits } from "../agent/limits.js";
import { loadConfig } from "../config/load-config.js";
import type { ToolSelection } from "../tools/select-tools.js";
import { CliError } from "./cli-error.js";
import type { CliAgentSettings } from "./create-cli-agent.js";
import { BUNDLED_MODEL_TOOLS, isBundledModel } from "./default-model.js";
import {
  addModelOptions,
  type ModelFlags,
  type ModelSettings,
  requireModelSettings,
} from "./model-options.js";
import { toolsModuleSha256 } from "./tools-module.js";

function list(value: string): string[] {
  return value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
}

function positiveInt(value: string, name: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(`${name} must be a positive integer, got "${value}".`);
  return n;
}

/** What `run` and `chat` share besides the model flags. */
export interface AgentCommandOptions extends ModelFlags {
  json?: boolean;
  maxSteps?: string;
  maxToolCalls?: string;
  timeout?: string;
  dryRun?: boolean;
  requireApproval?: string;
  autoApprove?: boolean;
  db?: string;
  toolsModule?: string;
  config?: string;
  system?: string;
  allow?: string;
  localOnly?: boolean;
  maxTools?: string;
  alwaysOffer?: string;
}

/**
 * The settings a run is started with, from the command's flags, the environment and the config file (flags win over
 * the environment, the environment over the config). Stops with the "no model configured" message (exit 2).
 */
export function cliAgentSettings(options: AgentCommandOptions, command: string): CliAgentSettings {
  const { config, file } = loadConfig(options.config ? { configPath: options.config } : {});
  const settings: CliAgentSettings = {
    model: requireModelSettings({ flags: options, config: config.model, configFile: file }, command),
  };
  if (options.toolsModule) {
    settings.toolsModule = path.resolve(options.toolsModule);
    settings.toolsModuleSha256 = toolsModuleSha256(settings.toolsModule);
  }
  if (options.config) settings.config = path.resolve(options.config);
  if (options.system) settings.system = options.system;
  if (options.dryRun) settings.dryRun = true;
  if (options.autoApprove) settings.autoApprove = true;
  if (options.requireApproval) settings.requireApproval = list(options.requireApproval);
  if (options.allow) settings.allow = list(options.allow);
  // The demo model is offered only the tools it was trained on, unless the user asked for others by name.
  else if (config.tools?.allow === undefined && isBundledModel(settings.model as ModelSettings))
    settings.allow = [...BUNDLED_MODEL_TOOLS];
  if (options.localOnly) settings.localOnly = true;
  const selection = cliToolSelection(options, config.toolSelection);
  if (selection) settings.toolSelection = selection;
  return settings;
}

/** `--max-tools` and `--always-offer` over the config's `toolSelection` (each flag over its key). */
function cliToolSelection(
  options: AgentCommandOptions,
  configured: ToolSelection | undefined,
): ToolSelection | undefined {
  const maxTools = options.maxTools ? positiveInt(options.maxTools, "--max-tools") : configured?.maxTools;
  const always = options.alwaysOffer !== undefined ? list(options.alwaysOffer) : configured?.always;
  if (maxTools === undefined) {
    if (options.alwaysOffer !== undefined)
      throw new CliError(
        "--always-offer goes with --max-tools <n> (or toolSelection.maxTools in the config).",
      );
    return undefined;
  }
  return { maxTools, ...(always?.length ? { always: [...always] } : {}) };
}

export function cliRunLimits(options: AgentCommandOptions): Partial<RunLimits> {
  const limits: Partial<RunLimits> = {};
  if (options.maxSteps) limits.maxSteps = positiveInt(options.maxSteps, "--max-steps");
  if (options.maxToolCalls) limits.maxToolCalls = positiveInt(options.maxToolCalls, "--max-tool-calls");
  if (options.timeout) limits.totalTimeoutMs = positiveInt(options.timeout, "--timeout");
  return limits;
}

/** The agent flags `run` and `chat` share (besides the model flags of model-options.ts). */
export function addAgentOptions(command: Command): Command {
  return addModelOptions(command)
    .option("--max-steps <n>", "model turns before the run stops (default 10)")
    .option("--max-tool-calls <n>", "tool executions before the run stops (default 50)")
    .option("--timeout <ms>", "total running time before the run stops (default 600000)")
    .option("--dry-run", "tools with side effects report what they would do instead of running")
    .option(
      "--require-approval <tools>",
      "comma-separated tools that need approval in this run (this wins over --auto-approve)",
    )
    .option(
      "--auto-approve",
      "approve every call without asking (for scripts), except tools named by --require-approval or set to ask or never through `serve`",
    )
    .option("--allow <tools>", "only these tools (comma-separated names or * patterns) are offered")
    .option("--local-only", "offer no open-world (network) tools")
    .option(
      "--max-tools <n>",
      "offer each model turn only the n tools that fit the conversation best (plus --always-offer and those already called)",
    )
    .option(
      "--always-offer <tools>",
      "with --max-tools: tools (comma-separated names or * patterns) always offered",
    )
    .option("--system <text>", "system prompt")
    .option(
      "--db <file|url>",
      "SQLite file or postgres:// URL (default: $TOOLBRIDGE_DB_URL, the config's db, else the user data dir's toolbridge/toolbridge.db)",
    )
    .option("-c, --config <file>", "config file (default: ./toolbridge.config.json when present)")
    .option(
      "--tools-module <file>",
      "extra tools from an ES module exporting `tools` (test fixtures, local tools)",
    );
}
