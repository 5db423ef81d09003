import type { SqliteStore } from "../store/sqlite-store.js";
import { createMemoryTools } from "../tools/builtin/memory.js";
import { openStore } from "./open-store.js";
import { createRuntime, type Runtime, type RuntimeOptions } from "./runtime.js";

/**
 * The runtime plus the memory tools (`memory_search`, `note_save`) that `run` and `chat` offer, so `tools`, `mcp` and
 * `serve` offer the same tools. Their store opens on first use: listing tools never creates a database.
 */
export async function createToolsRuntime(
  options: RuntimeOptions & { db?: string | undefined },
): Promise<Runtime> {
  const { db, ...runtimeOptions } = options;
  const runtime = await createRuntime(runtimeOptions);
  let store: SqliteStore | undefined;
  const open = () => {
    store ??= openStore(db);
    return store;
  };
  runtime.registry.registerAll(
    createMemoryTools({
      searchMemory: (query, searchOptions) => open().searchMemory(query, searchOptions),
      saveNote: (note) => open().saveNote(note),
    }),
  );
  return {
    ...runtime,
    async close() {
      await runtime.close();
      await store?.close();
    },
  };
}
