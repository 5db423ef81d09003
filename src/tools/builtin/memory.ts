import { z } from "zod";
import type { MemorySearchOptions, MemoryStore } from "../../core/memory-store.js";
import { defineTool } from "../define-tool.js";
import type { AnyToolDefinition } from "../tool-definition.js";

/**
 * `memory_search` (full-text search over stored conversations and notes) and `note_save`, over a store's FTS5 index.
 * Search terms are words, any of which may match; the best matches (bm25) come first.
 */
export function createMemoryTools(store: MemoryStore): AnyToolDefinition[] {
  const search = defineTool({
    name: "memory_search",
    title: "Search memory",
    description:
      "Full-text search over earlier conversations and saved notes. Give a few keywords; returns the best matching snippets with where they came from.",
    category: "memory",
    annotations: { readOnlyHint: true, openWorldHint: false },
    inputSchema: z.object({
      query: z.string().min(1).max(500).describe("keywords to look for"),
      limit: z.number().int().min(1).max(20).default(5).describe("how many results"),
      source: z.enum(["all", "notes", "conversations"]).default("all").describe("where to search"),
    }),
    handler: async ({ query, limit, source }, context) => {
      const options: MemorySearchOptions = { limit };
      // The run's own messages are the question being asked, not a memory of the answer.
      if (context.runId !== undefined) options.excludeRun = context.runId;
      // "all" is notes and what people wrote; the model's own answers only when conversations are asked for.
      if (source === "all") options.roles = ["user"];
      if (source === "notes") options.kind = "note";
      if (source === "conversations") options.kind = "message";
      const hits = await store.searchMemory(query, options);
      const text =
        hits.length === 0
          ? `No stored notes or messages match "${query}".`
          : hits
              .map((hit, i) =>
                hit.kind === "note"
                  ? `${i + 1}. note #${hit.id} "${hit.title ?? ""}" (${hit.createdAt}): ${hit.snippet}`
                  : `${i + 1}. ${hit.role ?? "message"} in conversation ${hit.conversationId} (${hit.createdAt}): ${hit.snippet}`,
              )
              .join("\n");
      return { content: [{ type: "text" as const, text }], structuredContent: { results: hits } };
    },
  });

  const save = defineTool({
    name: "note_save",
    title: "Save a note",
    description:
      "Store a note for later; memory_search finds it by its words. Use for facts the user wants remembered.",
    category: "memory",
    // Writes only toolbridge's own store: a side effect (dry runs skip it) but not one that needs approval.
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    inputSchema: z.object({
      title: z.string().min(1).max(200).describe("a short title"),
      content: z.string().min(1).max(20_000).describe("the note itself"),
      tags: z.array(z.string().min(1).max(50)).max(20).default([]).describe("optional keywords"),
    }),
    describeDryRun: (args) => `would save a note titled ${JSON.stringify(args.title)}`,
    handler: async ({ title, content, tags }) => {
      const note = await store.saveNote({ title, content, tags });
      return {
        content: [{ type: "text" as const, text: `Saved note #${note.id} "${note.title}".` }],
        structuredContent: { id: note.id, title: note.title, createdAt: note.createdAt },
      };
    },
  });

  return [search, save];
}
