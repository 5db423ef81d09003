import type { ToolSettings } from "../server/tools-api/tool-settings.js";
import type { SqliteStore } from "../store/sqlite-store.js";
import { createMemoryTools } from "../tools/builtin/memory.js";
import { loadToolSettings, TOOL_SETTINGS_FOLLOW_MS } from "./load-tool-settings.js";
import { openStore, resolveDbPath } from "./open-store.js";
import { createRuntime, type Runtime, type RuntimeOptions } from "./runtime.js";

/** A runtime with the command's database and the tool settings kept in it. */
export interface ToolsRuntime extends Runtime {
  /**
   * The command's database (`--db`), opened at the first call and closed with the runtime (a store given to
   * createToolsRuntime is the caller's to close). Listing tools never creates a database.
   */
  openStore(): SqliteStore;
  /**
   * The tool settings a person made through `serve`, applied to this runtime's registry (see loadToolSettings): what
   * every command that offers tools reads. `follow`: re-read every second until the runtime closes, so a change made
   * elsewhere applies here too (long-running commands).
   */
  withToolSettings(options?: { follow?: boolean }): Promise<ToolSettings>;
}

export interface ToolsRuntimeOptions extends RuntimeOptions {
  /** `--db <file>`; default: the user's data folder. */
  db?: string | undefined;
  /** A store the caller already opened (a run's): used instead of opening `db`, and left open at close. */
  store?: SqliteStore | undefined;
}

/**
 * The runtime plus the memory tools (`memory_search`, `note_save`) that `run` and `chat` offer, so `tools`, `mcp` and
 * `serve` offer the same tools, and the tool settings every command keeps. One store for all of them, opened on first
 * use: listing tools never creates a database.
 */
export async function createToolsRuntime(options: ToolsRuntimeOptions): Promise<ToolsRuntime> {
  const { db, store: given, ...runtimeOptions } = options;
  const runtime = await createRuntime(runtimeOptions);
  let opened: SqliteStore | undefined;
  const open = () => {
    opened ??= given ?? openStore(db);
    return opened;
  };
  runtime.registry.registerAll(
    createMemoryTools({
      searchMemory: (query, searchOptions) => open().searchMemory(query, searchOptions),
      saveNote: (note) => open().saveNote(note),
    }),
  );
  const stops: Array<() => void> = [];
  return {
    ...runtime,
    openStore: open,
    async withToolSettings({ follow = false } = {}) {
      const loaded = await loadToolSettings({
        registry: runtime.registry,
        dbFile: given ? given.location : resolveDbPath(db),
        openDb: open,
        configuredPolicies: runtime.config.mcp?.approvals,
        ...(follow ? { followEveryMs: TOOL_SETTINGS_FOLLOW_MS } : {}),
      });
      stops.push(loaded.stop);
      return loaded.settings;
    },
    async close() {
      for (const stop of stops.splice(0)) stop();
      await runtime.close();
      if (!given) await opened?.close();
      opened = undefined;
    },
  };
}
