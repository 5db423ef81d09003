import { createMemoryTools } from "../tools/builtin/memory.js";
import { LazyDatabase, resolveDbLocation } from "./open-store.js";
import { createRuntime, type Runtime, type RuntimeOptions } from "./runtime.js";

/** A runtime with its database: opened at the first use (see LazyDatabase), closed with the runtime. */
export interface ToolsRuntime extends Runtime {
  database: LazyDatabase;
}

/**
 * The runtime plus the memory tools (`memory_search`, `note_save`) that `run` and `chat` offer, so `tools`, `mcp` and
 * `serve` offer the same tools. The database is `--db`, else `$TOOLBRIDGE_DB_URL`, else the config's `"db"`, else the
 * user's data folder; it opens on first use: listing tools never creates a database.
 */
export async function createToolsRuntime(
  options: RuntimeOptions & { db?: string | undefined },
): Promise<ToolsRuntime> {
  const { db, ...runtimeOptions } = options;
  const runtime = await createRuntime(runtimeOptions);
  let database: LazyDatabase;
  try {
    database = new LazyDatabase(resolveDbLocation({ db, configDb: runtime.config.db }));
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
  return {
    ...runtime,
    database,
    async close() {
      await runtime.close();
      await database.close();
    },
  };
}
