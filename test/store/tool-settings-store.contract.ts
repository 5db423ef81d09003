/** The rules every ToolSettingsStore keeps (what serve's tool settings live in): run against each store in stores.test.ts. */
import { describe, expect, it } from "vitest";
import type { ToolSettingsStore } from "../../src/store/tool-settings-store.js";

/** `skip`: why this store cannot be tested here (no server); the contract is then reported as skipped. */
export function toolSettingsStoreContract(
  name: string,
  open: () => Promise<ToolSettingsStore> | ToolSettingsStore,
  skip?: string,
): void {
  describe.skipIf(skip !== undefined)(
    `${name} (ToolSettingsStore contract)${skip ? ` — ${skip}` : ""}`,
    () => {
      it("keeps each field as given and lists settings sorted by name", async () => {
        const store = await open();
        await store.put({ name: "zeta", enabled: false, updatedAt: "2026-01-01T00:00:00.000Z" });
        await store.put({ name: "alpha", policy: "never", updatedAt: "2026-01-02T00:00:00.000Z" });
        await store.put({ name: "mid", enabled: true, policy: "ask", updatedAt: "2026-01-03T00:00:00.000Z" });
        expect(await store.list()).toEqual([
          { name: "alpha", policy: "never", updatedAt: "2026-01-02T00:00:00.000Z" },
          { name: "mid", enabled: true, policy: "ask", updatedAt: "2026-01-03T00:00:00.000Z" },
          { name: "zeta", enabled: false, updatedAt: "2026-01-01T00:00:00.000Z" },
        ]);
        expect(await store.get("alpha")).toEqual({
          name: "alpha",
          policy: "never",
          updatedAt: "2026-01-02T00:00:00.000Z",
        });
        expect(await store.get("nothing")).toBeUndefined();
      });

      it("replaces a setting as a whole, and forgets one with nothing left in it", async () => {
        const store = await open();
        await store.put({ name: "t", enabled: false, policy: "ask", updatedAt: "2026-01-01T00:00:00.000Z" });
        await store.put({ name: "t", policy: "always", updatedAt: "2026-01-02T00:00:00.000Z" });
        expect(await store.get("t")).toEqual({
          name: "t",
          policy: "always",
          updatedAt: "2026-01-02T00:00:00.000Z",
        });
        await store.put({ name: "t", updatedAt: "2026-01-03T00:00:00.000Z" });
        expect(await store.get("t")).toBeUndefined();
        expect(await store.list()).toEqual([]);
      });

      it("hands out copies: changing a returned setting changes nothing stored", async () => {
        const store = await open();
        await store.put({ name: "t", enabled: false, updatedAt: "2026-01-01T00:00:00.000Z" });
        const got = await store.get("t");
        if (got) got.enabled = true;
        expect((await store.get("t"))?.enabled).toBe(false);
      });
    },
  );
}
