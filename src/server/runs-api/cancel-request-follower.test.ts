import { afterAll, afterEach, describe, expect, it } from "vitest";
import {
  createDatabase,
  dropDatabase,
  postgresMissing,
  postgresUrl,
} from "../../../test/helpers/postgres.js";
import { InMemoryStore } from "../../store/in-memory-store.js";
import { PostgresDatabase } from "../../store/postgres-database.js";
import type { Store } from "../../store/store.js";
import { CancelRequestFollower } from "./cancel-request-follower.js";

const newRun = (id: string, owner = "a:1") => ({
  id,
  conversationId: `c_${id}`,
  model: "replay",
  options: {},
  limits: {},
  owner,
  messages: [{ role: "user" as const, content: "hello" }],
});

const followers: CancelRequestFollower[] = [];
afterEach(() => {
  while (followers.length) followers.pop()?.close();
});

function follow(store: Store, driven: () => string[], pollMs: number) {
  const heard: string[] = [];
  const errors: unknown[] = [];
  const follower = new CancelRequestFollower({
    store,
    driven,
    onRequest: (runId) => heard.push(runId),
    pollMs,
    onError: (error) => errors.push(error),
  });
  followers.push(follower);
  return { follower, heard, errors };
}

async function until(what: string, check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("CancelRequestFollower", () => {
  it("acts on the requests of the runs driven here only, found by its poll, and reads nothing once closed", async () => {
    const store = new InMemoryStore();
    for (const id of ["mine", "also-mine", "elsewhere"]) await store.createRun(newRun(id));
    const driven = ["mine", "also-mine"];
    const { follower, heard } = follow(store, () => driven, 20);

    await store.requestCancel("elsewhere", { by: "ops", reason: "not ours" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toEqual([]);

    await store.requestCancel("mine", { by: "ops", reason: "stop it" });
    await until("the request to be heard", () => heard.includes("mine"));
    expect(new Set(heard)).toEqual(new Set(["mine"]));

    // Told again while the run goes on (its abort may not have landed yet); no longer once it is not driven here.
    const count = heard.length;
    await until("the request to be told again", () => heard.length > count);
    driven.splice(0, 1);
    follower.close();
    const afterClose = heard.length;
    await store.requestCancel("also-mine", { by: "ops", reason: "too late" });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toHaveLength(afterClose);
  });

  it("reads the store once for every run driven here, and not at all while none is", async () => {
    const store = new InMemoryStore();
    const reads: string[][] = [];
    const list = store.listCancelRequests.bind(store);
    store.listCancelRequests = (ids) => {
      reads.push([...ids]);
      return list(ids);
    };
    let driven: string[] = [];
    const { follower } = follow(store, () => driven, 60_000);
    await follower.check();
    expect(reads).toEqual([]);
    driven = ["r1", "r2", "r3"];
    await Promise.all([follower.check(), follower.check()]);
    // Two checks at once share one read.
    expect(reads).toEqual([["r1", "r2", "r3"]]);
  });

  it("reports a failed read and goes on polling", async () => {
    const store = new InMemoryStore();
    await store.createRun(newRun("r1"));
    let fail = true;
    const list = store.listCancelRequests.bind(store);
    store.listCancelRequests = (ids) => {
      if (fail) return Promise.reject(new Error("connection lost"));
      return list(ids);
    };
    await store.requestCancel("r1", { by: "ops", reason: "stop" });
    const { heard, errors } = follow(store, () => ["r1"], 20);
    await until("the failure to be reported", () => errors.length > 0);
    expect((errors[0] as Error).message).toBe("connection lost");
    fail = false;
    await until("the request to be heard after the store came back", () => heard.includes("r1"));
  });
});

describe.skipIf(!postgresUrl)(
  `CancelRequestFollower on PostgreSQL${postgresUrl ? "" : ` — ${postgresMissing}`}`,
  () => {
    const databases: string[] = [];
    const opened: PostgresDatabase[] = [];
    afterAll(async () => {
      for (const f of followers.splice(0)) f.close();
      while (opened.length) await opened.pop()?.close();
      for (const url of databases) await dropDatabase(url);
    });

    it("hears a request recorded by another instance through its notification, long before its next poll", async () => {
      const url = await createDatabase();
      databases.push(url);
      const a = await PostgresDatabase.open(url);
      opened.push(a);
      const b = await PostgresDatabase.open(url);
      opened.push(b);
      await a.store.createRun(newRun("r1", "a:1"));
      await a.store.createRun(newRun("r2", "a:1"));
      // A polls once a minute: only the notification can bring B's request within the test.
      const { heard } = follow(a.store, () => ["r1"], 60_000);
      await b.store.requestCancel("r2", { by: "ops", reason: "not driven by A" });
      // Asked again until heard: A's LISTEN for the channel is sent when the follower starts, and may land after the
      // first request's notification (its poll, a minute away, would find that one).
      const deadline = Date.now() + 5000;
      while (heard.length === 0 && Date.now() < deadline) {
        await b.store.requestCancel("r1", { by: "ops", reason: "stop it" });
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      expect(heard).toEqual(["r1"]);
    });
  },
);
