import type { ApprovalPolicyValue } from "../core/run-status.js";
import type { PostgresConnection } from "./postgres-connection.js";
import type { PostgresNotifications } from "./postgres-notifications.js";
import type { ToolSetting, ToolSettingsStore } from "./tool-settings-store.js";

/**
 * Tool settings in PostgreSQL's `tool_settings`, shared by every instance on the database. A change notifies the
 * settings channel in its transaction, so the other instances re-read at once (their once-a-second re-read stays, for
 * a notification lost while a LISTEN connection was down).
 */
export class PostgresToolSettingsStore implements ToolSettingsStore {
  readonly #db: PostgresConnection;
  readonly #notifications: PostgresNotifications;
  readonly #sql: (text: string) => string;
  readonly #channel: string;

  constructor(input: {
    connection: PostgresConnection;
    notifications: PostgresNotifications;
    sql: (text: string) => string;
    channel: string;
  }) {
    this.#db = input.connection;
    this.#notifications = input.notifications;
    this.#sql = input.sql;
    this.#channel = input.channel;
  }

  async list(): Promise<ToolSetting[]> {
    return (await this.#db.query(this.#sql("SELECT * FROM {S}.tool_settings ORDER BY name"))).map(fromRow);
  }

  async get(name: string): Promise<ToolSetting | undefined> {
    const [row] = await this.#db.query(this.#sql("SELECT * FROM {S}.tool_settings WHERE name = $1"), [name]);
    return row ? fromRow(row) : undefined;
  }

  async put(setting: ToolSetting): Promise<void> {
    await this.#db.tx(async (client) => {
      if (setting.enabled === undefined && setting.policy === undefined) {
        await client.query(this.#sql("DELETE FROM {S}.tool_settings WHERE name = $1"), [setting.name]);
      } else {
        await client.query(
          this.#sql(
            `INSERT INTO {S}.tool_settings (name, enabled, policy, updated_at) VALUES ($1, $2, $3, $4)
             ON CONFLICT (name) DO UPDATE SET enabled = excluded.enabled, policy = excluded.policy, updated_at = excluded.updated_at`,
          ),
          [setting.name, setting.enabled ?? null, setting.policy ?? null, setting.updatedAt],
        );
      }
      await client.query("SELECT pg_notify($1, $2)", [this.#channel, setting.name]);
    });
  }

  watch(changed: () => void): () => void {
    const off = this.#notifications.on(this.#channel, () => changed());
    const offReconnect = this.#notifications.onReconnect(changed);
    return () => {
      off();
      offReconnect();
    };
  }
}

/** A row as it is (see SqliteToolSettingsStore): a value outside the schema is passed on for the reader to report. */
function fromRow(row: Record<string, unknown>): ToolSetting {
  const setting: ToolSetting = { name: String(row.name), updatedAt: String(row.updated_at) };
  if (row.enabled !== null && row.enabled !== undefined) setting.enabled = row.enabled as boolean;
  if (row.policy !== null && row.policy !== undefined) setting.policy = row.policy as ApprovalPolicyValue;
  return setting;
}
