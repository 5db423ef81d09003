import type { PostgresConnection } from "./postgres-connection.js";
import { ConversationHasUnfinishedRunsError, type UnfinishedRun } from "./unfinished-runs.js";

const UNFINISHED =
  "SELECT id, status, owner FROM {S}.runs WHERE conversation_id = $1 AND status IN ('running', 'paused') ORDER BY created_at, id";

/**
 * Deletes a conversation from the PostgreSQL store in one transaction, as SqliteConversationEraser does: its
 * messages (their search columns go with them), its runs with their steps, tool calls and approvals, and the
 * conversation; the audit log keeps its entries. Resolves to the ids of the deleted runs.
 *
 * A conversation with a run that is not over (running, or paused for approval) is refused inside the same
 * transaction, with the runs' rows locked, so no instance can start or pause one between the check and the delete.
 */
export class PostgresConversationEraser {
  readonly #db: PostgresConnection;
  readonly #sql: (text: string) => string;

  constructor(connection: PostgresConnection, sql: (text: string) => string) {
    this.#db = connection;
    this.#sql = sql;
  }

  /** The conversation's runs that are not over, oldest first. */
  async unfinishedRuns(conversationId: string): Promise<UnfinishedRun[]> {
    return (await this.#db.query(this.#sql(UNFINISHED), [conversationId])).map(unfinishedRun);
  }

  async erase(conversationId: string): Promise<string[]> {
    return this.#db.tx(async (client) => {
      const { rows } = await client.query(
        this.#sql("SELECT id FROM {S}.runs WHERE conversation_id = $1 ORDER BY id FOR UPDATE"),
        [conversationId],
      );
      const unfinished = (await client.query(this.#sql(UNFINISHED), [conversationId])).rows.map(
        unfinishedRun,
      );
      if (unfinished.length > 0) throw new ConversationHasUnfinishedRunsError(conversationId, unfinished);
      const ids = rows.map((r) => String(r.id));
      const runs = this.#sql("(SELECT id FROM {S}.runs WHERE conversation_id = $1)");
      for (const table of ["approvals", "tool_calls", "steps"])
        await client.query(this.#sql(`DELETE FROM {S}.${table} WHERE run_id IN ${runs}`), [conversationId]);
      await client.query(this.#sql("DELETE FROM {S}.messages WHERE conversation_id = $1"), [conversationId]);
      await client.query(this.#sql("DELETE FROM {S}.runs WHERE conversation_id = $1"), [conversationId]);
      await client.query(this.#sql("DELETE FROM {S}.conversations WHERE id = $1"), [conversationId]);
      return ids;
    });
  }

  /** The titles of these conversations (null where none was set; absent where no such conversation exists). */
  async titles(conversationIds: readonly string[]): Promise<Map<string, string | null>> {
    const titles = new Map<string, string | null>();
    if (conversationIds.length === 0) return titles;
    const rows = await this.#db.query(
      this.#sql("SELECT id, title FROM {S}.conversations WHERE id = ANY($1)"),
      [[...conversationIds]],
    );
    for (const row of rows) titles.set(String(row.id), row.title === null ? null : String(row.title));
    return titles;
  }

  /** Set a conversation's title; false when there is no such conversation. */
  async rename(conversationId: string, title: string): Promise<boolean> {
    const rows = await this.#db.query(
      this.#sql("UPDATE {S}.conversations SET title = $1 WHERE id = $2 RETURNING id"),
      [title, conversationId],
    );
    return rows.length > 0;
  }
}

function unfinishedRun(row: Record<string, unknown>): UnfinishedRun {
  return {
    id: String(row.id),
    status: row.status as UnfinishedRun["status"],
    owner: row.owner === null || row.owner === undefined ? null : String(row.owner),
  };
}
