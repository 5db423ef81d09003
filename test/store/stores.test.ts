import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll } from "vitest";
import { InMemoryStore } from "../../src/store/in-memory-store.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { runStoreContract } from "./run-store.contract.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-stores-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

runStoreContract("InMemoryStore", () => new InMemoryStore());
runStoreContract(
  "SqliteStore (file)",
  () => new SqliteStore(path.join(dir, `s${++files}.db`), { synchronous: "normal" }),
);
