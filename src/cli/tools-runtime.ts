import type { ToolSettings } from "../server/tools-api/tool-settings.js";
import { createMemoryTools } from "../tools/builtin/memory.js";
import { loadToolSettings, TOOL_SETTINGS_FOLLOW_MS } from "./load-tool-settings.js";
import { LazyDatabase, resolveDbLocation } from "./open-store.js";
import { createRuntime, type Runtime, type RuntimeOptions } from "./runtime.js";

/** A runtime with the command's database and the tool settings kept in it. */
export interface ToolsRuntime extends Runtime {
  /**
   * The command's database: opened at the first use (see LazyDatabase), closed with the runtime unless the caller
   * gave it. Listing tools never creates a database.
   */
  database: LazyDatabase;
  /**
   * The tool settings a person made through `serve`, applied to this runtime's registry (see loadToolSettings): what
   * every command that offers tools reads. `follow`: re-read every second (and when PostgreSQL tells of a change)
   * until the runtime closes, so a change made elsewhere applies here too (long-running commands).
   */
  withToolSettings(options?: { follow?: boolean }): Promise<ToolSettings>;
}

export interface ToolsRuntimeOptions extends RuntimeOptions {
  /** `--db <file or URL>`; default: `$TOOLBRIDGE_DB_URL`, else the config's `"db"`, else the user's data folder. */
  db?: string | undefined;
  /** A database the caller already has (a run's): used instead of `db`, and left open at close. */
  database?: LazyDatabase | undefined;
}

/**
 * The runtime plus the memory tools (`memory_search`, `note_save`) that `run` and `chat` offer, so `tools`, `mcp` and
 * `serve` offer the same tools, and the tool settings every command keeps. One database for all of them, opened on
 * first use: listing tools never creates a database.
 */
export async function createToolsRuntime(options: ToolsRuntimeOptions): Promise<ToolsRuntime> {
  const { db, database: given, ...runtimeOptions } = options;
  const runtime = await createRuntime(runtimeOptions);
  let database: LazyDatabase;
  try {
    database = given ?? new LazyDatabase(resolveDbLocation({ db, configDb: runtime.config.db }));
  } catch (error) {
    await runtime.close();
    throw error;
  }
  runtime.registry.registerAll(
    createMemoryTools({
      searchMemory: async (query, searchOptions) =>
        (await database.open()).store.searchMemory(query, searchOptions),
      saveNote: async (note) => (await database.open()).store.saveNote(note),
    }),
  );
  const stops: Array<() => void> = [];
  return {
    ...runtime,
    database,
    async withToolSettings({ follow = false } = {}) {
      const loaded = await loadToolSettings({
        registry: runtime.registry,
        database,
        configuredPolicies: runtime.config.mcp?.approvals,
        ...(follow ? { followEveryMs: TOOL_SETTINGS_FOLLOW_MS } : {}),
      });
      stops.push(loaded.stop);
      return loaded.settings;
    },
    async close() {
      for (const stop of stops.splice(0)) stop();
      await runtime.close();
      if (!given) await database.close();
    },
  };
}
