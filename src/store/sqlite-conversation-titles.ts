import type Database from "better-sqlite3";
import { keepNativeAlive } from "./keep-native-alive.js";

/**
 * Conversation titles in the SQLite store: read for listings, changed by a rename. A run started without one titles
 * its new conversation with the start of its prompt. Shares the store's connection, like SqliteConversationEraser.
 */
export class SqliteConversationTitles {
  readonly #get: Database.Statement;
  readonly #rename: Database.Statement;

  constructor(db: Database.Database) {
    this.#get = keepNativeAlive(db.prepare("SELECT id, title FROM conversations WHERE id = ?"));
    this.#rename = keepNativeAlive(db.prepare("UPDATE conversations SET title = ? WHERE id = ?"));
  }

  /** The titles of these conversations (null where none was set; absent where no such conversation exists). */
  async titles(conversationIds: readonly string[]): Promise<Map<string, string | null>> {
    const titles = new Map<string, string | null>();
    for (const id of conversationIds) {
      const row = this.#get.get(id) as { id: string; title: string | null } | undefined;
      if (row) titles.set(row.id, row.title);
    }
    return titles;
  }

  /** Set a conversation's title; false when there is no such conversation. */
  async rename(conversationId: string, title: string): Promise<boolean> {
    return this.#rename.run(title, conversationId).changes > 0;
  }
}
