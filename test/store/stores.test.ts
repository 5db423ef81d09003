import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { InMemoryStore } from "../../src/store/in-memory-store.js";
import { PostgresDatabase } from "../../src/store/postgres-database.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { createDatabase, dropDatabase, postgresMissing, postgresUrl } from "../helpers/postgres.js";
import { runMemorySearchContract } from "./memory-search.contract.js";
import { runStoreContract } from "./run-store.contract.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-stores-"));
const databases: string[] = [];
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  for (const url of databases) await dropDatabase(url);
});
let files = 0;

const sqlite = () => new SqliteStore(path.join(dir, `s${++files}.db`), { synchronous: "normal" });
const postgres = async () => {
  const url = await createDatabase();
  databases.push(url);
  return (await PostgresDatabase.open(url)).store;
};
// Skipped only where no PostgreSQL server could be started (test/global-setup.ts says why); CI always has one.
const noPostgres = postgresUrl ? undefined : `no PostgreSQL: ${postgresMissing}`;

runStoreContract("InMemoryStore", () => new InMemoryStore());
runStoreContract("SqliteStore (file)", sqlite);
runStoreContract("PostgresStore", postgres, noPostgres);

runMemorySearchContract("InMemoryStore", () => new InMemoryStore());
runMemorySearchContract("SqliteStore (FTS5)", sqlite);
runMemorySearchContract("PostgresStore (tsvector)", postgres, noPostgres);
