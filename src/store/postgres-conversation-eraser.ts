import type { PostgresConnection } from "./postgres-connection.js";

/**
 * Deletes a conversation from the PostgreSQL store in one transaction, as SqliteConversationEraser does: its
 * messages (their search columns go with them), its runs with their steps, tool calls and approvals, and the
 * conversation; the audit log keeps its entries. Resolves to the ids of the deleted runs.
 */
export class PostgresConversationEraser {
  readonly #db: PostgresConnection;
  readonly #sql: (text: string) => string;

  constructor(connection: PostgresConnection, sql: (text: string) => string) {
    this.#db = connection;
    this.#sql = sql;
  }

  async erase(conversationId: string): Promise<string[]> {
    return this.#db.tx(async (client) => {
      const { rows } = await client.query(
        this.#sql("SELECT id FROM {S}.runs WHERE conversation_id = $1 ORDER BY id FOR UPDATE"),
        [conversationId],
      );
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
}
