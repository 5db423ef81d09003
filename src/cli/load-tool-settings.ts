import { ToolSettings } from "../server/tools-api/tool-settings.js";
import type { ToolSettingsStore } from "../store/tool-settings-store.js";
import type { ApprovalPolicy } from "../tools/approval-policy.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import type { LazyDatabase } from "./open-store.js";

/** How often long-running commands (`serve`, `mcp`) re-read the settings: a changed setting applies within this. */
export const TOOL_SETTINGS_FOLLOW_MS = 1000;

export interface LoadToolSettingsOptions {
  registry: ToolRegistry;
  /**
   * The command's database, opened at most when settings are read or changed. An SQLite file that does not exist
   * holds no settings and is not created to read them.
   */
  database: LazyDatabase;
  /** The config's policies (`mcp.approvals`): a setting made through the server wins over them. */
  configuredPolicies?: Readonly<Record<string, ApprovalPolicy>> | undefined;
  /** Where warnings about unusable stored settings go (each said once). Default: stderr. */
  warn?: (line: string) => void;
  /**
   * Re-read the settings this often (ms), so changes another process makes (`serve`'s PATCH while `toolbridge mcp`
   * runs, another instance on the same PostgreSQL) apply here too; registry listeners (MCP `list_changed`) hear of
   * them. A store that tells of changes (PostgreSQL's NOTIFY) is also re-read at once when told. Off by default; the
   * timer does not keep the process alive. Stop it with `stop()`.
   */
  followEveryMs?: number;
}

export interface LoadedToolSettings {
  settings: ToolSettings;
  /** Stop following changes (see `followEveryMs`). */
  stop(): void;
}

/**
 * The tool settings a person made through `serve` (`PATCH /api/tools/{name}`: on/off, approval policy), read from the
 * database and applied to a command's registry, so that every command offering tools — `serve`, `mcp`, `run`, `chat`,
 * `runs …`, `tools list|call` — keeps the same promises: a switched-off tool is hidden (the registry filters it out),
 * and `settings.approval` gives each call its policy. The one place every command goes through.
 */
export async function loadToolSettings(options: LoadToolSettingsOptions): Promise<LoadedToolSettings> {
  const warned = new Set<string>();
  const warn = (message: string) => {
    if (warned.has(message)) return;
    warned.add(message);
    (options.warn ?? ((line) => process.stderr.write(`toolbridge: ${line}\n`)))(message);
  };
  const { database } = options;
  const open = async () => (await database.open()).toolSettings;
  // Reading never creates the database (listing tools must not); the first change does.
  const store: ToolSettingsStore = {
    list: async () => (database.exists() ? (await open()).list() : []),
    get: async (name) => (database.exists() ? (await open()).get(name) : undefined),
    put: async (setting) => (await open()).put(setting),
  };
  const settings = await ToolSettings.load({
    registry: options.registry,
    store,
    configuredPolicies: options.configuredPolicies,
    warn,
  });
  let timer: ReturnType<typeof setInterval> | undefined;
  let unwatch: (() => void) | undefined;
  if (options.followEveryMs !== undefined) {
    const reload = () => {
      settings
        .reload()
        .catch((error: unknown) => warn(`cannot re-read the tool settings: ${(error as Error).message}`));
    };
    timer = setInterval(reload, options.followEveryMs);
    timer.unref?.();
    // Told at once by a store several instances share; an SQLite file is only re-read.
    if (database.location.kind === "postgres") unwatch = (await open()).watch?.(reload);
  }
  return {
    settings,
    stop: () => {
      clearInterval(timer);
      unwatch?.();
    },
  };
}
