import type Database from "better-sqlite3";
import { keepNativeAlive } from "./keep-native-alive.js";

/**
 * Deletes a conversation from the SQLite store's tables in one transaction: its messages (and their entries in the
 * memory index), its runs with their steps, tool calls and approvals, and the conversation. The audit log keeps its
 * entries: it records what tools did, which deleting the conversation does not undo. Shares the store's connection
 * the way McpApprovalLedger does; the caller checks that no run of the conversation is being driven.
 */
export class SqliteConversationEraser {
  readonly #runs: Database.Statement;
  readonly #erase: Database.Transaction<(conversationId: string) => string[]>;

  constructor(db: Database.Database) {
    const prepare = (sql: string) => keepNativeAlive(db.prepare(sql));
    this.#runs = prepare("SELECT id FROM runs WHERE conversation_id = ?").pluck();
    const runs = "(SELECT id FROM runs WHERE conversation_id = ?)";
    const statements = [
      prepare(
        "DELETE FROM memory_fts WHERE kind = 'message' AND ref_id IN (SELECT id FROM messages WHERE conversation_id = ?)",
      ),
      prepare(`DELETE FROM approvals WHERE run_id IN ${runs}`),
      prepare(`DELETE FROM tool_calls WHERE run_id IN ${runs}`),
      prepare(`DELETE FROM steps WHERE run_id IN ${runs}`),
      prepare("DELETE FROM messages WHERE conversation_id = ?"),
      prepare("DELETE FROM runs WHERE conversation_id = ?"),
    ];
    const conversation = prepare("DELETE FROM conversations WHERE id = ?");
    this.#erase = db.transaction((conversationId: string) => {
      const ids = this.#runs.all(conversationId) as string[];
      for (const statement of statements) statement.run(conversationId);
      conversation.run(conversationId);
      return ids;
    });
  }

  /** Delete the conversation; resolves to the ids of its runs (for their event logs), [] when it did not exist. */
  async erase(conversationId: string): Promise<string[]> {
    return this.#erase.immediate(conversationId);
  }
}
