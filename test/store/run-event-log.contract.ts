/**
 * The rules every RunEventLog keeps (the Runs API's replayable event log): run against each store in stores.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { RunEventLog } from "../../src/store/run-event-log.js";

/** `skip`: why this store cannot be tested here (no server); the contract is then reported as skipped. */
export function runEventLogContract(
  name: string,
  open: () => Promise<RunEventLog> | RunEventLog,
  skip?: string,
): void {
  describe.skipIf(skip !== undefined)(`${name} (RunEventLog contract)${skip ? ` — ${skip}` : ""}`, () => {
    it("numbers each run's events 1, 2, 3 … and lists them in order after a seq", async () => {
      const log = await open();
      const seqs = await Promise.all([
        log.append("run_a", { type: "run-started" }),
        log.append("run_b", { type: "run-started" }),
        log.append("run_a", { type: "text-delta", text: "he" }),
        log.append("run_a", { type: "text-delta", text: "llo" }),
      ]);
      expect(seqs).toEqual([1, 1, 2, 3]);
      expect((await log.list("run_a")).map((r) => [r.seq, r.event])).toEqual([
        [1, { type: "run-started" }],
        [2, { type: "text-delta", text: "he" }],
        [3, { type: "text-delta", text: "llo" }],
      ]);
      expect((await log.list("run_a", 1)).map((r) => r.seq)).toEqual([2, 3]);
      expect((await log.list("run_a", 1, 1)).map((r) => r.seq)).toEqual([2]);
      expect(await log.list("run_a", 3)).toEqual([]);
      expect(await log.lastSeq("run_a")).toBe(3);
      expect(await log.lastSeq("run_b")).toBe(1);
      expect(await log.lastSeq("nobody")).toBe(0);
    });

    it("commits an event before its append resolves, and keeps it as it was when appended", async () => {
      const log = await open();
      const event = { type: "text-delta", text: "a" };
      const pending = log.append("run_a", event);
      event.text = "changed";
      // Whether it is visible before the append resolves is the store's timing (PostgreSQL's batch may commit before
      // a read on another pooled connection runs): only "committed by the time it resolves" is promised.
      await pending;
      expect(await log.lastSeq("run_a")).toBe(1);
      expect((await log.list("run_a"))[0]?.event).toEqual({ type: "text-delta", text: "a" });
    });

    it("forgets deleted runs and numbers a new event of them from 1", async () => {
      const log = await open();
      await log.append("run_a", { type: "run-started" });
      await log.append("run_b", { type: "run-started" });
      await log.deleteRuns(["run_a"]);
      expect(await log.list("run_a")).toEqual([]);
      expect(await log.lastSeq("run_b")).toBe(1);
      expect(await log.append("run_a", { type: "run-started" })).toBe(1);
    });
  });
}
