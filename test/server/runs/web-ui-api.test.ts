/**
 * What the web UI reads besides runs and tools: the models to pick from, conversation titles and renames, runs by
 * tool, and the pending approvals of every run on the database — over REST and pushed to every WebSocket client,
 * including runs another process drives on the same SQLite file.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createAgent } from "../../../src/agent/create-agent.js";
import { createReplayModel } from "../../../src/models/replay-model.js";
import { SqliteStore } from "../../../src/store/sqlite-store.js";
import { ToolExecutor } from "../../../src/tools/tool-executor.js";
import { createTestTools } from "../../agent/helpers.js";
import { waitFor } from "../../helpers/wait-for.js";
import { GATED_TURNS, getJson, type Json, openServer, postJson, TestSocket, tempDbFile } from "./helpers.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function server() {
  const db = await tempDbFile();
  cleanups.push(db.remove);
  const opened = await openServer(db.file, GATED_TURNS);
  cleanups.push(() => opened.close());
  return { ...opened, file: db.file, ws: `${opened.url.replace("http", "ws")}/ws` };
}

async function socket(url: string) {
  const s = await TestSocket.open(url);
  cleanups.push(() => s.close());
  return s;
}

function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  return waitFor(
    "the state asked for",
    async () => {
      const value = await read();
      return done(value) ? { value } : undefined;
    },
    timeoutMs,
    50,
  ).then(({ value }) => value);
}

/** A pushed pending list: the last `approvals/pending` message received so far. */
function lastPending(ws: TestSocket): Json[] | undefined {
  const pushes = ws.messages.filter((m) => m.type === "approvals/pending");
  return pushes.at(-1)?.calls as Json[] | undefined;
}

describe("the API the web UI reads", () => {
  it("lists the models to pick from, with the default marked", async () => {
    const s = await server();
    expect((await getJson(`${s.url}/api/models`)).body).toEqual({
      data: [
        { name: "replay", default: true },
        { name: "slow", default: false },
      ],
      default: "replay",
    });
  });

  it("lists conversations with titles (the prompt's start) and renames one; bad titles change nothing", async () => {
    const s = await server();
    const { runId, conversationId } = (await postJson(`${s.url}/api/runs`, { message: "delete the old log" }))
      .body;
    await s.service.settled(runId);
    expect((await getJson(`${s.url}/api/conversations`)).body.data).toEqual([
      expect.objectContaining({ conversationId, title: "delete the old log" }),
    ]);
    const rename = (id: string, body: unknown) =>
      fetch(`${s.url}/api/conversations/${id}`, {
        method: "PATCH",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json }));
    expect(await rename(conversationId, { title: "  Old logs  " })).toEqual({
      status: 200,
      body: { conversationId, title: "Old logs" },
    });
    expect((await rename(conversationId, { title: "   " })).status).toBe(400);
    expect((await rename(conversationId, { title: "x", extra: 1 })).status).toBe(400);
    expect((await rename("conv_nope", { title: "x" })).status).toBe(404);
    expect((await getJson(`${s.url}/api/conversations/${conversationId}`)).body).toMatchObject({
      conversationId,
      title: "Old logs",
      runs: [{ runId, tools: ["delete_file"] }],
    });
  });

  it("filters runs by the tool they called", async () => {
    const s = await server();
    const gated = (await postJson(`${s.url}/api/runs`, { message: "delete it" })).body.runId as string;
    await s.service.settled(gated);
    const plain = await openServer(s.file, [{ text: "nothing to do" }]);
    cleanups.push(() => plain.close());
    const other = (await postJson(`${plain.url}/api/runs`, { message: "hi" })).body.runId as string;
    await plain.service.settled(other);
    const byTool = (await getJson(`${s.url}/api/runs?tool=delete_file`)).body;
    expect(byTool.data.map((r: Json) => r.runId)).toEqual([gated]);
    expect((await getJson(`${s.url}/api/runs?tool=add`)).body.data).toEqual([]);
    expect((await getJson(`${s.url}/api/runs`)).body.data.map((r: Json) => r.runId)).toEqual([other, gated]);
  });

  it("pushes every pending call to every signed-in socket: on connect, as runs pause, and as they are decided", async () => {
    const s = await server();
    const watcher = await socket(s.ws);
    // Connected before anything is pending: an empty list at once.
    await watcher.waitFor((m) => m.type === "approvals/pending");
    expect(lastPending(watcher)).toEqual([]);

    const { runId, conversationId } = (await postJson(`${s.url}/api/runs`, { message: "delete it" })).body;
    await s.service.settled(runId);
    await until(
      async () => lastPending(watcher),
      (calls) => calls?.length === 1,
    );
    expect(lastPending(watcher)).toEqual([
      expect.objectContaining({
        runId,
        conversationId,
        name: "delete_file",
        arguments: { path: "/tmp/old.log" },
        startedBy: "serve",
        model: "replay",
      }),
    ]);
    // REST says the same; a socket connecting now gets the list without subscribing to anything.
    expect((await getJson(`${s.url}/api/approvals`)).body.data).toEqual(lastPending(watcher));
    const late = await socket(s.ws);
    await late.waitFor((m) => m.type === "approvals/pending" && (m.calls as Json[]).length === 1);

    const callId = (lastPending(watcher) as Json[])[0]?.callId as string;
    await postJson(`${s.url}/api/runs/${runId}/decisions`, { decisions: [{ callId, decision: "approve" }] });
    await until(
      async () => lastPending(late),
      (calls) => calls?.length === 0,
    );
    await s.service.settled(runId);
    expect(s.tools.executed.map((e) => e.name)).toEqual(["delete_file"]);
  });

  it("includes runs another process drives on the same database; a serve run decided elsewhere goes on here", async () => {
    const s = await server();
    const watcher = await socket(s.ws);
    await watcher.waitFor((m) => m.type === "approvals/pending");

    // Another program (as `toolbridge run` does) on the same SQLite file pauses a run of its own.
    const otherStore = new SqliteStore(s.file);
    cleanups.push(() => otherStore.close());
    const otherTools = createTestTools();
    const agent = createAgent({
      model: createReplayModel(GATED_TURNS),
      tools: new ToolExecutor(otherTools.registry, { redact: false }),
      store: otherStore,
    });
    const cliRun = await agent.run("delete it from elsewhere").result;
    expect(cliRun.status).toBe("paused");
    const pushed = await until(
      async () => lastPending(watcher),
      (calls) => calls?.some((c) => c.runId === cliRun.runId) === true,
    );
    expect(pushed?.find((c) => c.runId === cliRun.runId)).toMatchObject({ startedBy: "library" });

    // A serve run, decided by the other process (as `toolbridge runs approve` does): this server resumes it.
    const { runId } = (await postJson(`${s.url}/api/runs`, { message: "delete it" })).body;
    await s.service.settled(runId);
    const pending = await until(
      async () => lastPending(watcher),
      (calls) => calls?.some((c) => c.runId === runId) === true,
    );
    const callId = pending?.find((c) => c.runId === runId)?.callId as string;
    await agent.decide(runId, [{ callId, decision: "approve" }], { by: "root (cli)" });
    const finished = await until(
      () => s.service.getRun(runId),
      (view) => view.status === "finished",
    );
    expect(finished.answer).toBe("Deleted /tmp/old.log as asked.");
    expect(finished.steps[0]?.calls[0]?.approval).toMatchObject({ decision: "approved", by: "root (cli)" });
    expect(s.tools.executed.map((e) => e.name)).toEqual(["delete_file"]);
    // The other program's own run is left to it: still paused, still listed.
    expect((await s.service.getRun(cliRun.runId)).status).toBe("paused");
    expect(lastPending(watcher)?.map((c) => c.runId)).toEqual([cliRun.runId]);
    expect(otherTools.executed).toEqual([]);
  });
});
