import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { Command } from "commander";
import { DecisionError, RunNotFoundError, RunStateError } from "../../agent/agent-errors.js";
import { type Agent, createAgent, offersTool } from "../../agent/create-agent.js";
import type { AgentEvent } from "../../agent/events.js";
import type { RunLimits } from "../../agent/limits.js";
import type { RunView } from "../../agent/run-view.js";
import { loadConfig } from "../../config/load-config.js";
import type { ToolChoice } from "../../core/language-model.js";
import { ReplayError } from "../../models/replay-model.js";
import type { Store } from "../../store/store.js";
import type { ApprovalPolicy } from "../../tools/approval-policy.js";
import { createMemoryTools } from "../../tools/builtin/memory.js";
import { resultText } from "../../tools/normalize-tool-result.js";
import type { ToolSelection } from "../../tools/select-tools.js";
import type { AnyToolDefinition } from "../../tools/tool-definition.js";
import { cliApprovalPolicy } from "../cli-approval-policy.js";
import { CliError, runCommand } from "../cli-error.js";
import { inCliTerms } from "../cli-wording.js";
import { commandHint, type HintContext } from "../command-hint.js";
import { createCliModel } from "../create-cli-model.js";
import { BUNDLED_MODEL_TOOLS, isBundledModel } from "../default-model.js";
import { createLoadProgress } from "../load-progress.js";
import { loadToolSettings, TOOL_SETTINGS_FOLLOW_MS } from "../load-tool-settings.js";
import {
  addModelOptions,
  checkModelSettings,
  type ModelFlags,
  type ModelSettings,
  modelLabel,
  requireModelSettings,
} from "../model-options.js";
import { configuredDb, LazyDatabase, resolveDbLocation } from "../open-store.js";
import { createRuntime, type Runtime } from "../runtime.js";

/**
 * What `run` was started with, kept in the run record (`options.cli`) so `runs approve|deny|resume` rebuild the same
 * agent in another process. Paths are absolute.
 */
export interface CliAgentSettings {
  /** The resolved model; a string is the older `replay:<file>` / GGUF-path form (with `protocol` beside it). */
  model: string | ModelSettings;
  protocol?: string;
  toolsModule?: string;
  /** SHA-256 of the tools module when the run started: `runs resume` refuses to import a changed file. */
  toolsModuleSha256?: string;
  config?: string;
  system?: string;
  dryRun?: boolean;
  autoApprove?: boolean;
  requireApproval?: string[];
  allow?: string[];
  localOnly?: boolean;
  /** `--max-tools` / `--always-offer`, or the config's `toolSelection`. */
  toolSelection?: ToolSelection;
}

export interface CliAgent {
  agent: Agent;
  store: Store;
  runtime: Runtime;
  modelSettings: ModelSettings;
  /** How tools reach the model: natively or through a text protocol (undefined for the replay model). */
  nativeTools?: boolean;
  close(): Promise<void>;
}

/** What an interactive command adds to the agent `run` builds. */
export interface CliAgentExtras {
  /** GGUF load progress (0..1), for a progress display. */
  onLoadProgress?: (progress: number) => void;
  /** Consulted before the flags' policy: e.g. `chat`'s "always allow this tool in this chat". */
  approval?: (call: { name: string }) => ApprovalPolicy | undefined;
  /** Start the calculator's workers while the model loads (`chat`: the first calculation then finds one ready). */
  startCalculator?: boolean;
}

/**
 * A named tool choice must name a tool the run offers; say which ones it could be. Checked before the model loads, so
 * a mistyped flag is answered at once, with nothing about loading printed before it.
 */
function checkToolChoice(choice: ToolChoice | undefined, offered: readonly AnyToolDefinition[]): void {
  if (!choice || typeof choice === "string") return;
  const names = offered.map((d) => d.tool.name);
  if (!names.includes(choice.name)) {
    throw new CliError(
      `--tool-choice must be auto, required, none or the name of an offered tool (${names.join(", ")}); got "${choice.name}".`,
    );
  }
}

/** The model settings of stored or fresh CLI settings (older runs stored a `replay:<file>` string). */
export function modelSettingsOf(settings: CliAgentSettings): ModelSettings {
  if (typeof settings.model !== "string") return settings.model;
  const spec = settings.model;
  const base: ModelSettings = spec.startsWith("replay:")
    ? { provider: "replay", path: path.resolve(spec.slice("replay:".length)) }
    : { provider: "llama", path: path.resolve(spec) };
  if (!base.path || base.path === path.resolve(""))
    throw new CliError("--model replay:<file.jsonl> needs a file.");
  return settings.protocol ? { ...base, protocol: settings.protocol } : base;
}

/** The shape defineTool returns, as far as the registry relies on it. */
function isToolDefinition(value: unknown): value is AnyToolDefinition {
  if (value === null || typeof value !== "object") return false;
  const { tool, handler } = value as { tool?: { name?: unknown }; handler?: unknown };
  return (
    typeof tool === "object" &&
    tool !== null &&
    typeof tool.name === "string" &&
    typeof handler === "function"
  );
}

/**
 * `--tools-module <file>`: an ES module exporting `tools` (an array of tool definitions) or a default function
 * returning one. Meant for test fixtures and local custom tools; the tools join the configured ones.
 */
export async function loadToolsModule(file: string, expectedSha256?: string): Promise<AnyToolDefinition[]> {
  // A stored run names the module by path, and resuming imports (runs) it: a file changed since the run started is
  // refused rather than run under the run's old approvals.
  if (expectedSha256 !== undefined && toolsModuleSha256(file) !== expectedSha256) {
    throw new CliError(
      `--tools-module ${file} has changed since this run started (its SHA-256 differs), so it is not imported. Restore the file the run was started with, or start a new run.`,
      2,
    );
  }
  let mod: { tools?: unknown; default?: unknown };
  try {
    mod = (await import(pathToFileURL(path.resolve(file)).href)) as typeof mod;
  } catch (error) {
    throw new CliError(`Cannot load --tools-module ${file}: ${(error as Error).message}`);
  }
  const tools = typeof mod.default === "function" ? await (mod.default as () => unknown)() : mod.tools;
  const expected =
    'export "tools", an array of defineTool({ name, description, inputSchema, handler }) results (defineTool comes from "toolbridge"), or a default function returning one';
  if (!Array.isArray(tools)) throw new CliError(`--tools-module ${file} must ${expected}.`);
  // Plain objects would fail deep inside the registry with a TypeError; say what is wrong with which entry instead.
  tools.forEach((entry: unknown, i) => {
    if (!isToolDefinition(entry)) {
      const what =
        entry !== null && typeof entry === "object" && "name" in entry
          ? `a plain object ("${String((entry as { name: unknown }).name)}"), not a defineTool(...) result`
          : `${entry === null ? "null" : typeof entry}, not a defineTool(...) result`;
      throw new CliError(`--tools-module ${file}: tools[${i}] is ${what}. The module must ${expected}.`);
    }
  });
  return tools as AnyToolDefinition[];
}

/** The SHA-256 (hex) of a tools module file; a clear error when it cannot be read. */
export function toolsModuleSha256(file: string): string {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch (error) {
    throw new CliError(`Cannot read --tools-module ${file}: ${(error as NodeJS.ErrnoException).message}`, 2);
  }
}

/** Build the agent the CLI uses, from settings (fresh from flags, or read back from a stored run). */
export async function createCliAgent(
  settings: CliAgentSettings,
  database: LazyDatabase,
  limits?: Partial<RunLimits>,
  extras: CliAgentExtras = {},
): Promise<CliAgent> {
  const modelSettings = modelSettingsOf(settings);
  checkModelSettings(modelSettings);
  const runtime = await createRuntime({
    ...(settings.config ? { configPath: settings.config } : {}),
    ...(extras.startCalculator ? { startCalculator: true } : {}),
  });
  let stopFollowing: (() => void) | undefined;
  const close = async () => {
    stopFollowing?.();
    await runtime.close();
  };
  try {
    const opened = await database.open();
    const store = opened.store;
    runtime.registry.registerAll(createMemoryTools(store));
    if (settings.toolsModule)
      runtime.registry.registerAll(await loadToolsModule(settings.toolsModule, settings.toolsModuleSha256));
    // What a person set through `serve` holds here too: switched-off tools are not offered, policies are kept.
    const toolSettings = await loadToolSettings({
      registry: runtime.registry,
      database,
      configuredPolicies: runtime.config.mcp?.approvals,
      followEveryMs: TOOL_SETTINGS_FOLLOW_MS,
    });
    stopFollowing = toolSettings.stop;
    const offers = offersTool({
      ...(settings.allow ? { allow: settings.allow } : {}),
      ...(settings.localOnly ? { localOnly: true } : {}),
    });
    checkToolChoice(modelSettings.toolChoice, runtime.registry.definitions().filter(offers));
    const { model, nativeTools } = await createCliModel(
      modelSettings,
      extras.onLoadProgress ? { onLoadProgress: extras.onLoadProgress } : {},
    );
    const agent = createAgent({
      model,
      tools: runtime.executor,
      store,
      ...(modelSettings.toolChoice ? { toolChoice: modelSettings.toolChoice } : {}),
      ...(settings.system ? { system: settings.system } : {}),
      ...(limits ? { limits } : {}),
      ...(settings.dryRun ? { dryRun: true } : {}),
      ...(settings.allow ? { allow: settings.allow } : {}),
      ...(settings.localOnly ? { localOnly: true } : {}),
      ...(settings.toolSelection ? { toolSelection: settings.toolSelection } : {}),
      approval: cliApprovalPolicy({
        stored: (name) => toolSettings.settings.policyOf(name),
        answered: extras.approval,
        requireApproval: new Set(settings.requireApproval ?? []),
        autoApprove: settings.autoApprove === true,
      }),
      traceDir: opened.traceDir,
    } as Parameters<typeof createAgent>[0]);
    return {
      agent,
      store,
      runtime,
      modelSettings,
      ...(nativeTools !== undefined ? { nativeTools } : {}),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Read the settings `run` stored with a run, to rebuild its agent. */
export function storedSettings(options: Record<string, unknown>, runId: string): CliAgentSettings {
  const cli = options.cli as CliAgentSettings | undefined;
  const model = cli?.model as unknown;
  const known =
    typeof model === "string" || (typeof model === "object" && model !== null && "provider" in model);
  if (!cli || !known) {
    throw new CliError(
      `Run ${runId} was not started by the CLI, so its model and tools are unknown here; resume it from the program that started it.`,
    );
  }
  return cli;
}

/** Errors of the agent that are the user's input, not a failure: exit 2 with the message. */
export function asCliError(error: unknown): unknown {
  if (
    error instanceof RunNotFoundError ||
    error instanceof RunStateError ||
    error instanceof DecisionError ||
    error instanceof ReplayError
  ) {
    return new CliError(error.message, 2);
  }
  return error;
}

function short(value: unknown, max = 200): string {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Progress lines on stderr, so stdout keeps only the answer (or the JSON). */
export function describeEvent(event: AgentEvent): string | undefined {
  switch (event.type) {
    // Only a model the run loads itself (the CLI loads its own before the run, with a progress display).
    case "model-loading":
      return event.progress === undefined ? `… loading ${event.model}` : undefined;
    case "model-loaded":
      return `… loaded ${event.model} in ${(event.durationMs / 1000).toFixed(1)} s`;
    case "call-finished":
      return `→ ${event.callId} ${event.name} ${short(event.arguments)}`;
    case "call-invalid":
      return `✗ ${event.callId} ${event.name}: ${short(event.message)}`;
    case "tool-result":
      return `← ${event.callId} ${event.name} [${event.status}] ${short(resultText(event.result))}`;
    case "approval-requested":
      return `? approval needed: ${event.calls.map((c) => `${c.callId} ${c.name}`).join(", ")}`;
    case "error":
      return `! ${inCliTerms(event.message)}`;
    default:
      return undefined;
  }
}

/**
 * Print a run's outcome; returns the exit code (0 finished or paused, 1 stopped by a limit or error). A paused run
 * gets the exact commands that decide and resume it, with the `--db` this command was given, ready to paste.
 */
export function printRunView(
  view: RunView,
  json: boolean,
  error?: string | null,
  hint: HintContext = {},
): number {
  if (json) {
    process.stdout.write(`${JSON.stringify(view)}\n`);
  } else if (view.status === "paused") {
    process.stdout.write(
      `Run ${view.runId} paused: waiting for approval of ${view.pending.length} call(s):\n`,
    );
    for (const p of view.pending)
      process.stdout.write(`  ${p.callId}  ${p.name} ${short(p.arguments, 400)}\n`);
    process.stdout.write("Decide each call (approve or deny), then resume:\n");
    for (const p of view.pending) {
      process.stdout.write(`  ${commandHint(["runs", "approve", view.runId, p.callId], hint)}\n`);
      process.stdout.write(`  ${commandHint(["runs", "deny", view.runId, p.callId], hint)}\n`);
    }
    process.stdout.write(`  ${commandHint(["runs", "resume", view.runId], hint)}\n`);
  } else if (view.status === "finished") {
    process.stdout.write(`${view.answer ?? ""}\n`);
  } else {
    const why = error ?? view.error;
    process.stderr.write(
      `Run ${view.runId} ${view.status}: ${view.stopReason}${why ? ` (${inCliTerms(why)})` : ""}\n`,
    );
  }
  return view.status === "stopped" ? 1 : 0;
}

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

export function registerRunCommand(program: Command): void {
  addAgentOptions(
    program
      .command("run")
      .description("run one prompt through the agent loop; a run that needs approval pauses (see `runs`)")
      .argument("<prompt>", "what to ask")
      .option("--json", "print one JSON object: runId, status, stopReason, answer, steps, pending"),
  ).action((prompt: string, options: AgentCommandOptions) =>
    runCommand(async () => {
      const settings = cliAgentSettings(options, "run");
      const limits = cliRunLimits(options);
      const database = new LazyDatabase(
        resolveDbLocation({ db: options.db, configDb: configuredDb(options.config) }),
      );
      const store = (await database.open()).store;
      let cli: CliAgent | undefined;
      try {
        // GGUF load progress on stderr, so stdout keeps only the answer (or the JSON).
        const progress = options.json
          ? undefined
          : createLoadProgress(modelLabel(modelSettingsOf(settings)), process.stderr);
        try {
          cli = await createCliAgent(
            settings,
            database,
            limits,
            progress ? { onLoadProgress: (p) => progress.update(p) } : {},
          );
        } finally {
          progress?.finish(cli !== undefined);
        }
        const handle = cli.agent.run(prompt, { metadata: { cli: settings, user: os.userInfo().username } });
        for await (const event of handle) {
          const line = options.json ? undefined : describeEvent(event);
          if (line) process.stderr.write(`${line}\n`);
        }
        const view = await handle.result;
        const record = await store.getRun(view.runId);
        return printRunView(view, options.json === true, record?.error, { db: options.db });
      } catch (error) {
        throw asCliError(error);
      } finally {
        await cli?.close();
        await database.close();
      }
    }),
  );
}
