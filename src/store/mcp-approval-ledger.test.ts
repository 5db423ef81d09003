import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createDatabase, dropDatabase, postgresUrl } from "../../test/helpers/postgres.js";
import { McpApprovalLedger } from "./mcp-approval-ledger.js";
import { PostgresDatabase } from "./postgres-database.js";
import { SqliteStore } from "./sqlite-store.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function twoStoresOnOneFile() {
  const dir = await mkdtemp(path.join(tmpdir(), "toolbridge-ledger-"));
  const a = new SqliteStore(path.join(dir, "db.sqlite"));
  const b = new SqliteStore(path.join(dir, "db.sqlite"));
  cleanups.push(async () => {
    await a.close();
    await b.close();
    await rm(dir, { recursive: true, force: true });
  });
  return [new McpApprovalLedger(a.db), new McpApprovalLedger(b.db)] as const;
}

describe("McpApprovalLedger", () => {
  it("lets each requestState id be used once, across connections to one database", async () => {
    const [a, b] = await twoStoresOnOneFile();
    const expires = Date.now() + 60_000;
    expect(a.consume("state-1", expires)).toBe(true);
    expect(b.consume("state-1", expires)).toBe(false);
    expect(a.consume("state-1", expires)).toBe(false);
    expect(b.consume("state-2", expires)).toBe(true);
  });

  it("generates the signing key once and hands every instance the same one", async () => {
    const [a, b] = await twoStoresOnOneFile();
    const key = b.signingKey();
    expect(key.length).toBeGreaterThanOrEqual(32);
    expect(a.signingKey()).toBe(key);
  });
});

async function twoInstancesOnOnePostgres() {
  const url = await createDatabase();
  const [a, b] = await Promise.all([PostgresDatabase.open(url), PostgresDatabase.open(url)]);
  cleanups.push(async () => {
    await a.close();
    await b.close();
    await dropDatabase(url);
  });
  return [a.mcpLedger, b.mcpLedger] as const;
}

describe.skipIf(!postgresUrl)("PostgresMcpApprovalLedger", () => {
  it("lets each requestState id be used once, also when two instances try it at the same moment", async () => {
    const [a, b] = await twoInstancesOnOnePostgres();
    const expires = Date.now() + 60_000;
    const tries = await Promise.all([
      a.consume("state-1", expires),
      b.consume("state-1", expires),
      a.consume("state-1", expires),
    ]);
    expect(tries.filter(Boolean)).toHaveLength(1);
    expect(await b.consume("state-2", expires)).toBe(true);
  });

  it("generates the signing key once and hands every instance the same one", async () => {
    const [a, b] = await twoInstancesOnOnePostgres();
    const [ka, kb] = await Promise.all([a.signingKey(), b.signingKey()]);
    expect(ka.length).toBeGreaterThanOrEqual(32);
    expect(kb).toBe(ka);
  });
});
