/**
 * How memory search finds and ranks, the same for every full-text engine behind a store (SQLite's FTS5 with bm25,
 * PostgreSQL's tsvector with ts_rank): a word in another inflection matches, a note's title weighs more than its
 * body, more of the query's words rank higher, one match in a short text ranks above one in a long text, matches are
 * marked in the snippet, and search syntax in the query is only words. Run by test/store/stores.test.ts.
 */
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/core/agent-message.js";
import type { Store } from "../../src/store/store.js";

const filler = (words: number) =>
  Array.from({ length: words }, (_, i) => ["weather", "report", "monday", "traffic", "lunch"][i % 5]).join(
    " ",
  );

/** A stored run of conversation `conversationId` holding `messages`: what memory search finds of a conversation. */
const storeRun = (store: Store, id: string, conversationId: string, messages: AgentMessage[]) =>
  store.createRun({ id, conversationId, model: "m", options: {}, limits: {}, owner: "x:1", messages });

export function runMemorySearchContract(
  name: string,
  open: () => Promise<Store> | Store,
  skip?: string,
): void {
  describe.skipIf(skip !== undefined)(`${name} (memory search ranking)${skip ? ` — ${skip}` : ""}`, () => {
    it("finds a word in another inflection and marks the match in the snippet", async () => {
      const store = await open();
      await store.saveNote({ title: "Parking", content: "The car is parked on level 3, spot B12." });
      await store.saveNote({ title: "Groceries", content: "milk, eggs, bread" });
      const hits = await store.searchMemory("where did I park the car?");
      expect(hits.map((h) => h.title)).toEqual(["Parking"]);
      expect(hits[0]?.snippet).toContain("[parked]");
      await store.close();
    });

    it("ranks a match in a note's title above the same word in another note's body", async () => {
      const store = await open();
      // Saved first: a tie would list it last (newest first), so only the title's weight puts it first.
      await store.saveNote({ title: "Budget", content: "numbers for the coming year" });
      await store.saveNote({ title: "Misc", content: "the budget is tight this year" });
      expect((await store.searchMemory("budget")).map((h) => h.title)).toEqual(["Budget", "Misc"]);
      await store.close();
    });

    it("ranks a text holding more of the query's words higher", async () => {
      const store = await open();
      await store.saveNote({ title: "two", content: "apples and pears from the market" });
      await store.saveNote({ title: "one", content: "apples from the market" });
      await store.saveNote({ title: "three", content: "plums from the market" });
      expect((await store.searchMemory("pears apples")).map((h) => h.title)).toEqual(["two", "one"]);
      await store.close();
    });

    it("ranks one match in a short text above one match in a long text", async () => {
      const store = await open();
      // Saved first: only the length puts it first.
      await store.saveNote({ title: "short", content: "water the garden" });
      await store.saveNote({ title: "long", content: `${filler(120)} garden ${filler(120)}` });
      expect((await store.searchMemory("garden")).map((h) => h.title)).toEqual(["short", "long"]);
      await store.close();
    });

    it("searches what people and the model said, not tool output, and keeps notes and messages apart on request", async () => {
      const store = await open();
      await storeRun(store, "r1", "c1", [
        { role: "user", content: "My sister's birthday is on the fourth of May" },
      ]);
      await store.saveNote({ title: "Gift ideas", content: "a birthday cake" });
      expect((await store.searchMemory("birthday")).map((h) => h.kind).sort()).toEqual(["message", "note"]);
      const [message] = await store.searchMemory("birthday", { kind: "message" });
      expect(message).toMatchObject({ kind: "message", conversationId: "c1", role: "user", title: null });
      expect(message?.snippet).toContain("[birthday]");
      expect((await store.searchMemory("birthday", { kind: "note" })).map((h) => h.title)).toEqual([
        "Gift ideas",
      ]);
      await store.close();
    });

    it("leaves out the asking run's own messages on request, and keeps other runs' and notes", async () => {
      const store = await open();
      const run = (id: string, conversationId: string, content: string) =>
        storeRun(store, id, conversationId, [{ role: "user", content }]);
      await run("r1", "c1", "remember that my bike lock code is plinth3390");
      await store.saveNote({ title: "bike lock", content: "plinth3390" });
      await run("r2", "c2", "what is my bike lock code?");
      const everything = await store.searchMemory("bike lock");
      expect(everything.map((h) => h.conversationId ?? "note").sort()).toEqual(["c1", "c2", "note"]);
      const excluded = await store.searchMemory("bike lock", { excludeRun: "r2" });
      expect(excluded.map((h) => h.conversationId ?? "note").sort()).toEqual(["c1", "note"]);
      expect(excluded.some((h) => h.snippet.includes("plinth3390"))).toBe(true);
      await store.close();
    });

    it("holds messages to the roles asked for, keeping notes", async () => {
      const store = await open();
      await storeRun(store, "r1", "c1", [
        { role: "user", content: "remember that my bike lock code is plinth3390" },
        { role: "assistant", content: "Saved your bike lock code: pliliz3390." },
      ]);
      await store.saveNote({ title: "bike lock", content: "plinth3390" });
      const roles = async (options: Parameters<Store["searchMemory"]>[1]) =>
        (await store.searchMemory("bike lock", options)).map((h) => h.role ?? "note").sort();
      expect(await roles({})).toEqual(["assistant", "note", "user"]);
      expect(await roles({ roles: ["user"] })).toEqual(["note", "user"]);
      expect(await roles({ roles: ["assistant"], kind: "message" })).toEqual(["assistant"]);
      expect(await roles({ roles: [] })).toEqual(["note"]);
      await store.close();
    });

    it("takes search syntax in the query as plain words, honours the limit, and finds nothing in nothing", async () => {
      const store = await open();
      await store.saveNote({ title: "quote", content: 'He said "NEAR" and then left' });
      for (let i = 0; i < 8; i++) await store.saveNote({ title: `note ${i}`, content: "kettle" });
      expect((await store.searchMemory('"NEAR( AND * OR')).map((h) => h.title)).toEqual(["quote"]);
      expect(await store.searchMemory("kettle", { limit: 3 })).toHaveLength(3);
      expect(await store.searchMemory("kettle")).toHaveLength(5);
      expect(await store.searchMemory("  ...  ")).toEqual([]);
      expect(await store.searchMemory("zeppelin")).toEqual([]);
      await store.close();
    });
  });
}
