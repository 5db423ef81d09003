import { randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import { keepNativeAlive } from "./keep-native-alive.js";

/**
 * What MCP approvals keep in the database so that several `toolbridge serve` processes on one file agree: which
 * signed `requestState` values were already used (each runs a call at most once, on any instance) and the key they
 * are signed with. Kept apart from SqliteStore's run/message methods: it shares only the connection.
 */
export class McpApprovalLedger {
  readonly #db: Database.Database;
  readonly #statements = new Map<string, Database.Statement>();

  constructor(db: Database.Database) {
    this.#db = db;
  }

  /** Prepared once per SQL text and kept (see keep-native-alive.ts). */
  #stmt(sql: string): Database.Statement {
    let statement = this.#statements.get(sql);
    if (!statement) {
      statement = keepNativeAlive(this.#db.prepare(sql));
      this.#statements.set(sql, statement);
    }
    return statement;
  }

  /**
   * Record that the state `id` is used now. Returns false when it was used before (a replay), so the caller runs
   * nothing. Rows past their expiry are dropped on the way: an expired state is refused by its signature anyway.
   */
  consume(id: string, expiresAtMs: number, nowMs = Date.now()): boolean {
    const run = this.#db.transaction(() => {
      this.#stmt("DELETE FROM mcp_request_states WHERE expires_at < ?").run(nowMs);
      const info = this.#stmt(
        "INSERT OR IGNORE INTO mcp_request_states (id, used_at, expires_at) VALUES (?, ?, ?)",
      ).run(id, new Date(nowMs).toISOString(), expiresAtMs);
      return info.changes === 1;
    });
    return run.immediate();
  }

  /** The signing key for requestState: generated once (32 random bytes, base64url) and shared by every instance. */
  signingKey(): string {
    const run = this.#db.transaction(() => {
      this.#stmt("INSERT OR IGNORE INTO mcp_settings (key, value) VALUES ('requestStateKey', ?)").run(
        randomBytes(32).toString("base64url"),
      );
      const row = this.#stmt("SELECT value FROM mcp_settings WHERE key = 'requestStateKey'").get() as {
        value: string;
      };
      return row.value;
    });
    return run.immediate();
  }
}
