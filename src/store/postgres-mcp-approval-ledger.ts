import { randomBytes } from "node:crypto";
import type { PostgresConnection } from "./postgres-connection.js";

/**
 * The MCP approval ledger (see McpApprovalLedger) in PostgreSQL: each signed `requestState` is used at most once on
 * any instance (the primary key decides, in one statement), and the signing key is generated once and shared.
 */
export class PostgresMcpApprovalLedger {
  readonly #db: PostgresConnection;
  readonly #sql: (text: string) => string;

  constructor(connection: PostgresConnection, sql: (text: string) => string) {
    this.#db = connection;
    this.#sql = sql;
  }

  /** Record that the state `id` is used now; false when it was used before (a replay). Expired rows are dropped. */
  async consume(id: string, expiresAtMs: number, nowMs = Date.now()): Promise<boolean> {
    return this.#db.tx(async (client) => {
      await client.query(this.#sql("DELETE FROM {S}.mcp_request_states WHERE expires_at < $1"), [nowMs]);
      const { rowCount } = await client.query(
        this.#sql(
          "INSERT INTO {S}.mcp_request_states (id, used_at, expires_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
        ),
        [id, new Date(nowMs).toISOString(), expiresAtMs],
      );
      return rowCount === 1;
    });
  }

  /** The signing key for requestState: generated once (32 random bytes, base64url) and shared by every instance. */
  async signingKey(): Promise<string> {
    return this.#db.tx(async (client) => {
      await client.query(
        this.#sql(
          "INSERT INTO {S}.mcp_settings (key, value) VALUES ('requestStateKey', $1) ON CONFLICT (key) DO NOTHING",
        ),
        [randomBytes(32).toString("base64url")],
      );
      const { rows } = await client.query(
        this.#sql("SELECT value FROM {S}.mcp_settings WHERE key = 'requestStateKey'"),
      );
      return String(rows[0]?.value);
    });
  }
}
