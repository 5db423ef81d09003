export type { MemoryHit, MemoryStore, NoteRecord } from "../core/memory-store.js";
export type { ApprovalPolicyValue, RunStatus, StopReason, ToolCallState } from "../core/run-status.js";
export { defaultDataDir, defaultDbPath } from "./default-db-path.js";
export { InMemoryStore } from "./in-memory-store.js";
export { isPostgresUrl, PostgresDatabase, type PostgresDatabaseOptions } from "./postgres-database.js";
export type { PostgresStore } from "./postgres-store.js";
export type { RunEventLog, RunEventRecord } from "./run-event-log.js";
export { SqliteStore, type SqliteStoreOptions, StoreOpenError } from "./sqlite-store.js";
export * from "./store.js";
