import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteConversationEraser } from "./sqlite-conversation-eraser.js";
import { SqliteStore } from "./sqlite-store.js";
import { ConversationHasUnfinishedRunsError } from "./unfinished-runs.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-eraser-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const run = (id: string, conversationId: string) => ({
  id,
  conversationId,
  model: "replay",
  options: {},
  limits: {},
  owner: "host:1",
  messages: [{ role: "user" as const, content: `hello from ${id}` }],
});

describe("SqliteConversationEraser", () => {
  it("refuses, deleting nothing, while a run of the conversation is paused or running; deletes once they are over", async () => {
    const store = new SqliteStore(path.join(dir, "tb.db"));
    const eraser = new SqliteConversationEraser(store.db);
    await store.createRun(run("run_a", "conv_1"));
    await store.createRun(run("run_b", "conv_1"));
    await store.updateRun("run_a", { status: "paused", stopReason: "awaiting-approval", owner: null });
    expect(await eraser.unfinishedRuns("conv_1")).toEqual([
      { id: "run_a", status: "paused", owner: null },
      { id: "run_b", status: "running", owner: "host:1" },
    ]);

    const refused = await eraser.erase("conv_1").catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ConversationHasUnfinishedRunsError);
    expect((refused as ConversationHasUnfinishedRunsError).runs.map((r) => r.id)).toEqual(["run_a", "run_b"]);
    expect((refused as Error).message).toMatch("run_a (paused), run_b (running)");
    expect(await store.getRun("run_a")).toMatchObject({ status: "paused" });
    expect(await store.listMessages("conv_1")).toHaveLength(2);

    await store.updateRun("run_a", { status: "stopped", stopReason: "aborted", owner: null });
    await expect(eraser.erase("conv_1")).rejects.toThrow("run_b (running)");
    await store.updateRun("run_b", { status: "finished", stopReason: "final-answer", owner: null });
    expect(await eraser.unfinishedRuns("conv_1")).toEqual([]);
    expect((await eraser.erase("conv_1")).sort()).toEqual(["run_a", "run_b"]);
    expect(await store.getRun("run_a")).toBeUndefined();
    expect(await store.listMessages("conv_1")).toEqual([]);
    expect(await eraser.erase("conv_nope")).toEqual([]);
    await store.close();
  });
});
