import { existsSync } from "node:fs";
import { ToolSettings } from "../server/tools-api/tool-settings.js";
import type { SqliteStore } from "../store/sqlite-store.js";
import { SqliteToolSettingsStore } from "../store/sqlite-tool-settings-store.js";
import type { ToolSettingsStore } from "../store/tool-settings-store.js";
import type { ApprovalPolicy } from "../tools/approval-policy.js";
import type { ToolRegistry } from "../tools/tool-registry.js";

/** How often long-running commands (`serve`, `mcp`) re-read the settings: a changed setting applies within this. */
export const TOOL_SETTINGS_FOLLOW_MS = 1000;

export interface LoadToolSettingsOptions {
  registry: ToolRegistry;
  /** The database file (`--db` resolved). One that does not exist holds no settings and is not created to read them. */
  dbFile: string;
  /** Open (or hand over the already open) store of `dbFile`; called at most when settings are read or changed. */
  openDb: () => SqliteStore;
  /** The config's policies (`mcp.approvals`): a setting made through the server wins over them. */
  configuredPolicies?: Readonly<Record<string, ApprovalPolicy>> | undefined;
  /** Where warnings about unusable stored settings go (each said once). Default: stderr. */
  warn?: (line: string) => void;
  /**
   * Re-read the settings this often (ms), so changes another process makes (`serve`'s PATCH while `toolbridge mcp`
   * runs) apply here too; registry listeners (MCP `list_changed`) hear of them. Off by default; the timer does not
   * keep the process alive. Stop it with `stop()`.
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
  let sqlite: ToolSettingsStore | undefined;
  const open = () => {
    sqlite ??= new SqliteToolSettingsStore(options.openDb().db);
    return sqlite;
  };
  // Reading never creates the database (listing tools must not); the first change does.
  const readable = () => sqlite !== undefined || existsSync(options.dbFile);
  const store: ToolSettingsStore = {
    list: async () => (readable() ? open().list() : []),
    get: async (name) => (readable() ? open().get(name) : undefined),
    put: (setting) => open().put(setting),
  };
  const settings = await ToolSettings.load({
    registry: options.registry,
    store,
    configuredPolicies: options.configuredPolicies,
    warn,
  });
  let timer: ReturnType<typeof setInterval> | undefined;
  if (options.followEveryMs !== undefined) {
    timer = setInterval(() => {
      settings
        .reload()
        .catch((error: unknown) => warn(`cannot re-read the tool settings: ${(error as Error).message}`));
    }, options.followEveryMs);
    timer.unref?.();
  }
  return { settings, stop: () => clearInterval(timer) };
}
