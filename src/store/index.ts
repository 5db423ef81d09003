export { defaultDataDir, defaultDbPath } from "./default-db-path.js";
export { InMemoryStore } from "./in-memory-store.js";
export { MIGRATIONS, type Migration, SCHEMA_VERSION } from "./migrations.js";
export { SqliteStore, type SqliteStoreOptions, StoreOpenError, toFtsQuery } from "./sqlite-store.js";
export * from "./store.js";
