import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { AgentMessage } from "../../core/agent-message.js";
import { SqliteStore } from "../../store/sqlite-store.js";
import { resultText } from "../normalize-tool-result.js";
import { ToolExecutor } from "../tool-executor.js";
import { ToolRegistry } from "../tool-registry.js";
import { createMemoryTools } from "./memory.js";

let dir: string;
let store: SqliteStore;
let executor: ToolExecutor;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-memory-"));
  store = new SqliteStore(path.join(dir, "memory.db"));
  const registry = new ToolRegistry();
  registry.registerAll(createMemoryTools(store));
  executor = new ToolExecutor(registry);
});

afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A stored run of conversation `conversationId` holding `messages`, as a chat leaves one. */
const storeRun = (id: string, conversationId: string, messages: AgentMessage[]) =>
  store.createRun({ id, conversationId, model: "test", options: {}, limits: {}, owner: "x:1", messages });

describe("memory tools", () => {
  it("finds a saved note by a word of its content, also after reopening the database", async () => {
    const saved = await executor.execute({
      name: "note_save",
      arguments: { title: "Parking", content: "The car is parked on level 3, spot B12." },
    });
    expect(saved.status).toBe("ok");
    await store.close();
    store = new SqliteStore(path.join(dir, "memory.db"));
    const registry = new ToolRegistry();
    registry.registerAll(createMemoryTools(store));
    const found = await new ToolExecutor(registry).execute({
      name: "memory_search",
      arguments: { query: "where is the car parked?" },
    });
    expect(resultText(found.result)).toContain("Parking");
    expect(resultText(found.result)).toContain("[parked]");
  });

  it("searches conversation messages and can be limited to notes", async () => {
    await storeRun("r1", "c1", [{ role: "user", content: "My sister's birthday is on the fourth of May" }]);
    await store.saveNote({ title: "groceries", content: "milk, eggs" });
    const all = await executor.execute({ name: "memory_search", arguments: { query: "birthday" } });
    expect(resultText(all.result)).toContain("conversation c1");
    const notesOnly = await executor.execute({
      name: "memory_search",
      arguments: { query: "birthday", source: "notes" },
    });
    expect(resultText(notesOnly.result)).toMatch(/No stored notes or messages match/);
  });

  it("called in a run, leaves out that run's own messages: the question is no memory of its answer", async () => {
    const start = (id: string, content: string) => storeRun(id, `c_${id}`, [{ role: "user", content }]);
    await start("r1", "my bike lock code is plinth3390");
    await start("r2", "what is my bike lock code?");
    const inRun = await executor.execute({
      name: "memory_search",
      arguments: { query: "bike lock" },
      runId: "r2",
    });
    expect(resultText(inRun.result)).toContain("conversation c_r1");
    expect(resultText(inRun.result)).not.toContain("conversation c_r2");
    // Outside a run (MCP, `tools call`) everything is searched.
    const outside = await executor.execute({ name: "memory_search", arguments: { query: "bike lock" } });
    expect(resultText(outside.result)).toContain("conversation c_r2");
  });

  it("searches notes and what people wrote by default; the model's own answers only among conversations", async () => {
    await storeRun("r1", "c1", [
      { role: "user", content: "remember that my bike lock code is plinth3390" },
      // A tiny model's miscopy: as a memory it would contradict the note.
      { role: "assistant", content: "Saved: your bike lock code is pliliz3390." },
    ]);
    await store.saveNote({ title: "bike lock code", content: "my bike lock code is plinth3390" });
    const all = resultText(
      (await executor.execute({ name: "memory_search", arguments: { query: "bike lock code" } })).result,
    );
    expect(all).toContain('note #1 "bike lock code"');
    expect(all).toContain("user in conversation c1");
    expect(all).not.toContain("pliliz3390");
    const conversations = resultText(
      (
        await executor.execute({
          name: "memory_search",
          arguments: { query: "bike lock code", source: "conversations" },
        })
      ).result,
    );
    expect(conversations).toContain("assistant in conversation c1");
    expect(conversations).not.toContain("note #1");
  });

  it("treats FTS syntax in the query as plain words", async () => {
    await store.saveNote({ title: "quote", content: 'He said "NEAR" AND then OR left' });
    const result = await executor.execute({ name: "memory_search", arguments: { query: '"NEAR( AND * OR' } });
    expect(result.status).toBe("ok");
    expect(resultText(result.result)).toContain("quote");
  });

  it("dry run does not save", async () => {
    const outcome = await executor.execute(
      { name: "note_save", arguments: { title: "t", content: "secret plan" } },
      { dryRun: true },
    );
    expect(outcome.status).toBe("dry-run");
    expect(await store.searchMemory("plan")).toEqual([]);
  });
});
