/**
 * Issue 18's acceptance for the Runs API, with real parts: a SQLite file store, the replay model, the HTTP server on
 * port 0, an SSE client (fetch) and a WebSocket client (the `ws` package).
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  GATED_TURNS,
  getJson,
  openServer,
  postJson,
  readSse,
  type SseEvent,
  TestSocket,
  tempDbFile,
} from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function tempFile() {
  const db = await tempDbFile();
  cleanups.push(db.remove);
  return db.file;
}

async function serverOn(
  file: string,
  ...rest: Parameters<typeof openServer> extends [string, ...infer R] ? R : never
) {
  const opened = await openServer(file, ...rest);
  let closed = false;
  cleanups.push(async () => {
    if (!closed) await opened.close();
  });
  return {
    ...opened,
    async close() {
      closed = true;
      await opened.close();
    },
  };
}

function expectConsecutive(events: SseEvent[]) {
  expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
}

describe("Runs API acceptance", () => {
  it("a gated call pauses; the SSE client sees approval-requested; a WebSocket decision resumes it and the same stream goes on to run-finished", async () => {
    const s = await serverOn(await tempFile(), GATED_TURNS);
    const started = await postJson(`${s.url}/api/runs`, { message: "delete the old log" });
    expect(started.status).toBe(202);
    const { runId, conversationId } = started.body;
    expect(runId).toMatch(/^run_/);
    expect(conversationId).toMatch(/^conv_/);

    const seen: SseEvent[] = [];
    let socket: TestSocket | undefined;
    const stream = readSse(`${s.url}/api/runs/${runId}/events`, (event) => {
      seen.push(event);
      if (event.event === "approval-requested") {
        // Another client decides, over the WebSocket, while this stream stays open.
        void (async () => {
          socket = await TestSocket.open(`${s.url.replace("http", "ws")}/ws`);
          const calls = event.data.calls as Array<{ callId: string }>;
          socket.send({
            id: 1,
            type: "runs/decide",
            runId,
            decisions: [{ callId: calls[0]?.callId, decision: "approve" }],
          });
        })();
      }
    });
    const result = await stream;
    expect(result).toEqual({ status: 200, ended: "finished" });
    const types = seen.map((e) => e.event);
    expect(types).toContain("approval-requested");
    expect(types.indexOf("run-paused")).toBeGreaterThan(types.indexOf("approval-requested"));
    expect(types).toContain("approval-decided");
    expect(types).toContain("run-resumed");
    expect(types.at(-1)).toBe("run-finished");
    expect(seen.at(-1)?.data).toMatchObject({ status: "finished", answer: "Deleted /tmp/old.log as asked." });
    expectConsecutive(seen);
    // Each event's data is the AgentEvent itself, its seq in `id`.
    expect(seen.every((e) => e.data.type === e.event && e.data.runId === runId)).toBe(true);
    const reply = await socket?.waitFor((m) => m.id === 1);
    expect(reply).toMatchObject({ type: "result", result: { runId, ready: true, pending: [] } });
    expect(s.tools.executed.map((e) => e.name)).toEqual(["delete_file"]);
    socket?.close();

    // The run view is the one `runs show --json` prints.
    const view = await getJson(`${s.url}/api/runs/${runId}`);
    expect(view.body).toMatchObject({ runId, status: "finished", stopReason: "final-answer", pending: [] });
    expect(view.body.steps[0].calls[0].approval).toMatchObject({ decision: "approved", by: "websocket" });

    // A second decision on the same call: 409 naming who decided it; nothing changes.
    const callId = view.body.steps[0].calls[0].id;
    const again = await postJson(`${s.url}/api/runs/${runId}/decisions`, {
      decisions: [{ callId, decision: "deny" }],
    });
    expect(again.status).toBe(409);
    expect(again.body.error.type).toBe("conflict_error");
    expect(again.body.error.message).toMatch(/already decided.*approved by websocket/);
    expect((await getJson(`${s.url}/api/runs/${runId}`)).body).toEqual(view.body);
  });

  it("a client that drops mid-run and reconnects with Last-Event-ID gets every event exactly once, in order", async () => {
    const turns = [
      { text: "Step one, slowly.", calls: [{ name: "sleep", arguments: { ms: 60, label: "a" } }] },
      { text: "Step two, slowly.", calls: [{ name: "sleep", arguments: { ms: 60, label: "b" } }] },
      { text: "Step three, slowly.", calls: [{ name: "sleep", arguments: { ms: 60, label: "c" } }] },
      { text: "All three steps are done now, in order, as asked." },
    ];
    const s = await serverOn(await tempFile(), turns);
    const { runId } = (await postJson(`${s.url}/api/runs`, { message: "go", model: "slow" })).body;
    const first: SseEvent[] = [];
    const dropped = await readSse(`${s.url}/api/runs/${runId}/events`, (event) => {
      first.push(event);
      return event.event !== "tool-started"; // hang up while the first tool runs
    });
    expect(dropped.ended).toBe("stopped");
    // The run moves on meanwhile: its second step starts while nobody listens.
    await vi.waitFor(
      async () =>
        expect((await s.events.list(runId)).map((r) => r.event)).toContainEqual(
          expect.objectContaining({ type: "step-started", step: 2 }),
        ),
      { timeout: 20_000 },
    );
    const second: SseEvent[] = [];
    const resumed = await readSse(
      `${s.url}/api/runs/${runId}/events`,
      (event) => {
        second.push(event);
      },
      { "Last-Event-ID": String(first.at(-1)?.id) },
    );
    expect(resumed.ended).toBe("finished");
    expect(second[0]?.id).toBe((first.at(-1)?.id ?? 0) + 1);
    const all = [...first, ...second];
    expectConsecutive(all);
    expect(all.at(-1)?.event).toBe("run-finished");
    // Exactly the log: same seqs, same events.
    const log = await s.events.list(runId);
    expect(all.map((e) => [e.id, e.data])).toEqual(log.map((r) => [r.seq, r.event]));
    // `?after=` does the same for clients that cannot set headers.
    const tail: SseEvent[] = [];
    await readSse(`${s.url}/api/runs/${runId}/events?after=${log.length - 2}`, (e) => {
      tail.push(e);
    });
    expect(tail.map((e) => e.id)).toEqual([log.length - 1, log.length]);
  });

  it("a restart between pause and decision loses nothing: the decision resumes the run in the new process", async () => {
    const file = await tempFile();
    const first = await serverOn(file, GATED_TURNS);
    const { runId } = (await postJson(`${first.url}/api/runs`, { message: "delete the old log" })).body;
    const before: SseEvent[] = [];
    await readSse(`${first.url}/api/runs/${runId}/events`, (e) => {
      before.push(e);
      return e.event !== "run-paused";
    });
    const paused = await getJson(`${first.url}/api/runs?status=paused`);
    expect(paused.body.data.map((r: { runId: string }) => r.runId)).toEqual([runId]);
    await first.close();

    const second = await serverOn(file, GATED_TURNS, { tools: first.tools });
    expect(second.recovered).toEqual([]); // paused runs stay paused
    const view = (await getJson(`${second.url}/api/runs/${runId}`)).body;
    expect(view.status).toBe("paused");
    const decided = await postJson(`${second.url}/api/runs/${runId}/decisions`, {
      decisions: [{ callId: view.pending[0].callId, decision: "approve" }],
    });
    expect(decided).toMatchObject({ status: 200, body: { ready: true, pending: [] } });
    const after: SseEvent[] = [];
    await readSse(
      `${second.url}/api/runs/${runId}/events`,
      (e) => {
        after.push(e);
      },
      { "Last-Event-ID": String(before.at(-1)?.id) },
    );
    const all = [...before, ...after];
    expectConsecutive(all);
    expect(after.map((e) => e.event)).toContain("run-resumed");
    expect(all.at(-1)?.data).toMatchObject({ type: "run-finished", status: "finished" });
    expect(first.tools.executed.map((e) => e.name)).toEqual(["delete_file"]);
    expect((await getJson(`${second.url}/api/runs/${runId}`)).body.answer).toBe(
      "Deleted /tmp/old.log as asked.",
    );
  });

  it("two servers on one database: a stream on one follows a run the other drives, to run-finished, each event once", async () => {
    const file = await tempFile();
    const a = await serverOn(file, GATED_TURNS);
    const b = await serverOn(file, GATED_TURNS);
    const { runId } = (await postJson(`${a.url}/api/runs`, { message: "delete the old log" })).body;
    const seen: SseEvent[] = [];
    const stream = readSse(`${b.url}/api/runs/${runId}/events`, (e) => {
      seen.push(e);
    });
    await a.service.settled(runId);
    const { pending } = (await getJson(`${a.url}/api/runs/${runId}`)).body;
    await postJson(`${a.url}/api/runs/${runId}/decisions`, {
      decisions: [{ callId: pending[0].callId, decision: "approve" }],
    });
    expect((await stream).ended).toBe("finished");
    expectConsecutive(seen);
    expect(seen.map((e) => e.event)).toEqual((await a.events.list(runId)).map((r) => r.event.type));
    expect(seen.at(-1)?.data).toMatchObject({ type: "run-finished", status: "finished" });
  });
});
