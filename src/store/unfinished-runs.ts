import type { RunStatus } from "../core/run-status.js";
import { StoreConflictError } from "./store.js";

/** A run of a conversation that is not over: `running` (being driven) or `paused` (waiting for a person). */
export interface UnfinishedRun {
  id: string;
  status: Extract<RunStatus, "running" | "paused">;
  /** `host:pid` of the process driving it; null when nobody is (a paused run). */
  owner: string | null;
}

/**
 * The conversation still has runs that are not over; nothing was deleted. A paused run waits for a person's
 * decision: erasing it would silently lose what they were asked to decide.
 */
export class ConversationHasUnfinishedRunsError extends StoreConflictError {
  override name = "ConversationHasUnfinishedRunsError";
  constructor(
    readonly conversationId: string,
    readonly runs: readonly UnfinishedRun[],
  ) {
    super(
      `Conversation ${conversationId} has ${runs.length === 1 ? "a run that is" : "runs that are"} not over: ${runs.map((r) => `${r.id} (${r.status})`).join(", ")}.`,
    );
  }
}

/**
 * What a server needs of a database to delete conversations and to title them (SQLite and PostgreSQL alike): the
 * delete refuses, in its own transaction, while a run is not over. Without titles, listings carry none and a rename
 * is refused.
 */
export interface ConversationRecords {
  /** The conversation's runs that are not over, oldest first. */
  unfinishedRuns(conversationId: string): Promise<UnfinishedRun[]>;
  /** Delete it; the ids of its runs ([] when it did not exist). Rejects with ConversationHasUnfinishedRunsError. */
  erase(conversationId: string): Promise<string[]>;
  /** Titles of these conversations (null where none was set; absent where no such conversation exists). */
  titles?(conversationIds: readonly string[]): Promise<Map<string, string | null>>;
  /** Set a conversation's title; false when there is no such conversation. */
  rename?(conversationId: string, title: string): Promise<boolean>;
}
