import type Database from "better-sqlite3";
import type { ApprovalPolicyValue } from "../core/run-status.js";
import { keepNativeAlive } from "./keep-native-alive.js";
import type { ToolSetting, ToolSettingsStore } from "./tool-settings-store.js";

interface Row {
  name: string;
  enabled: unknown;
  policy: unknown;
  updated_at: string;
}

/**
 * A row as it is. The table's CHECKs keep values in range, but a file written by another version or by hand may hold
 * anything: a value outside the schema is passed on unchanged (not read as "off" or "always"), so the reader
 * (ToolSettings.load) can report it instead of acting on a guess.
 */
function fromRow(row: Row): ToolSetting {
  const setting: ToolSetting = { name: row.name, updatedAt: row.updated_at };
  if (row.enabled !== null)
    setting.enabled = (row.enabled === 1 ? true : row.enabled === 0 ? false : row.enabled) as boolean;
  if (row.policy !== null) setting.policy = row.policy as ApprovalPolicyValue;
  return setting;
}

/** Tool settings in the `tool_settings` table (migration 4) of a store's connection, e.g. `new SqliteToolSettingsStore(store.db)`. */
export class SqliteToolSettingsStore implements ToolSettingsStore {
  readonly #list: Database.Statement;
  readonly #get: Database.Statement;
  readonly #upsert: Database.Statement;
  readonly #delete: Database.Statement;

  constructor(db: Database.Database) {
    // Prepared once and kept: see keep-native-alive.ts.
    this.#list = keepNativeAlive(db.prepare("SELECT * FROM tool_settings ORDER BY name"));
    this.#get = keepNativeAlive(db.prepare("SELECT * FROM tool_settings WHERE name = ?"));
    this.#upsert = keepNativeAlive(
      db.prepare(
        `INSERT INTO tool_settings (name, enabled, policy, updated_at) VALUES (@name, @enabled, @policy, @updatedAt)
         ON CONFLICT(name) DO UPDATE SET enabled = excluded.enabled, policy = excluded.policy, updated_at = excluded.updated_at`,
      ),
    );
    this.#delete = keepNativeAlive(db.prepare("DELETE FROM tool_settings WHERE name = ?"));
  }

  async list(): Promise<ToolSetting[]> {
    return (this.#list.all() as Row[]).map(fromRow);
  }

  async get(name: string): Promise<ToolSetting | undefined> {
    const row = this.#get.get(name) as Row | undefined;
    return row ? fromRow(row) : undefined;
  }

  async put(setting: ToolSetting): Promise<void> {
    if (setting.enabled === undefined && setting.policy === undefined) {
      this.#delete.run(setting.name);
      return;
    }
    this.#upsert.run({
      name: setting.name,
      enabled: setting.enabled === undefined ? null : setting.enabled ? 1 : 0,
      policy: setting.policy ?? null,
      updatedAt: setting.updatedAt,
    });
  }
}
