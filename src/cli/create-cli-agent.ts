import path from "node:path";
import { type Agent, createAgent, offersTool } from "../agent/create-agent.js";
import type { RunLimits } from "../agent/limits.js";
import type { ToolChoice } from "../core/language-model.js";
import type { Store } from "../store/store.js";
import type { ApprovalPolicy } from "../tools/approval-policy.js";
import type { ToolSelection } from "../tools/select-tools.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import { cliApprovalPolicy } from "./cli-approval-policy.js";
import { CliError } from "./cli-error.js";
import { createCliModel } from "./create-cli-model.js";
import { checkModelSettings, type ModelSettings } from "./model-options.js";
import type { LazyDatabase } from "./open-store.js";
import type { Runtime } from "./runtime.js";
import { loadToolsModule } from "./tools-module.js";
import { createToolsRuntime } from "./tools-runtime.js";

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

/** Build the agent the CLI uses, from settings (fresh from flags, or read back from a stored run). */
export async function createCliAgent(
  settings: CliAgentSettings,
  database: LazyDatabase,
  limits?: Partial<RunLimits>,
  extras: CliAgentExtras = {},
): Promise<CliAgent> {
  const modelSettings = modelSettingsOf(settings);
  checkModelSettings(modelSettings);
  // The memory tools read and write the run's own database (the caller's to close).
  const runtime = await createToolsRuntime({
    ...(settings.config ? { configPath: settings.config } : {}),
    ...(extras.startCalculator ? { startCalculator: true } : {}),
    database,
  });
  const close = () => runtime.close();
  try {
    const opened = await database.open();
    const store = opened.store;
    if (settings.toolsModule)
      runtime.registry.registerAll(await loadToolsModule(settings.toolsModule, settings.toolsModuleSha256));
    // What a person set through `serve` holds here too: switched-off tools are not offered, policies are kept.
    const toolSettings = await runtime.withToolSettings({ follow: true });
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
        stored: (name) => toolSettings.policyOf(name),
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
