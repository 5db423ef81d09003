import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { McpApprovalLedger } from "./mcp-approval-ledger.js";
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
