import type Database from "better-sqlite3";
import { keepNativeAlive } from "./keep-native-alive.js";
import { ConversationHasUnfinishedRunsError, type UnfinishedRun } from "./unfinished-runs.js";

/**
 * Deletes a conversation from the SQLite store's tables in one transaction: its messages (and their entries in the
 * memory index), its runs with their steps, tool calls and approvals, and the conversation. The audit log keeps its
 * entries: it records what tools did and who decided what, which deleting the conversation does not undo. Shares the
 * store's connection the way McpApprovalLedger does.
 *
 * A conversation with a run that is not over (running, or paused for approval) is refused inside the same
 * transaction, so no run can start or pause between the check and the delete; the caller cancels such runs first
 * when the person deleting asked for that.
 */
export class SqliteConversationEraser {
  readonly #runs: Database.Statement;
  readonly #unfinished: Database.Statement;
  readonly #erase: Database.Transaction<(conversationId: string) => string[]>;

  constructor(db: Database.Database) {
    const prepare = (sql: string) => keepNativeAlive(db.prepare(sql));
    this.#runs = prepare("SELECT id FROM runs WHERE conversation_id = ?").pluck();
    this.#unfinished = prepare(
      "SELECT id, status, owner FROM runs WHERE conversation_id = ? AND status IN ('running', 'paused') ORDER BY created_at, id",
    );
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
      const unfinished = this.#unfinished.all(conversationId) as UnfinishedRun[];
      if (unfinished.length > 0) throw new ConversationHasUnfinishedRunsError(conversationId, unfinished);
      const ids = this.#runs.all(conversationId) as string[];
      for (const statement of statements) statement.run(conversationId);
      conversation.run(conversationId);
      return ids;
    });
  }

  /** The conversation's runs that are not over, oldest first. */
  async unfinishedRuns(conversationId: string): Promise<UnfinishedRun[]> {
    return this.#unfinished.all(conversationId) as UnfinishedRun[];
  }

  /**
   * Delete the conversation; resolves to the ids of its runs (for their event logs), [] when it did not exist.
   * Rejects with ConversationHasUnfinishedRunsError, deleting nothing, while one of its runs is running or paused.
   */
  async erase(conversationId: string): Promise<string[]> {
    return this.#erase.immediate(conversationId);
  }
}
