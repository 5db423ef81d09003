/** The Runs API's edges: bad input (clear 4xx, nothing changed), cancel, conversations, recovery at start. */
import os from "node:os";
import { afterEach, describe, expect, it, vi } from "vitest";
import {
  GATED_TURNS,
  getJson,
  type Json,
  openServer,
  postJson,
  readSse,
  type SseEvent,
  tempDbFile,
} from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function server(turns = GATED_TURNS, file?: string) {
  let path = file;
  if (!path) {
    const db = await tempDbFile();
    cleanups.push(db.remove);
    path = db.file;
  }
  const opened = await openServer(path, turns);
  cleanups.push(() => opened.close());
  return opened;
}

async function untilPaused(url: string, runId: string): Promise<SseEvent[]> {
  const events: SseEvent[] = [];
  await readSse(`${url}/api/runs/${runId}/events`, (e) => {
    events.push(e);
    return e.event !== "run-paused";
  });
  return events;
}

describe("Runs API: bad input gets a clear 4xx and changes nothing", () => {
  it("rejects malformed starts, unknown runs and models, bad cursors and sequence numbers", async () => {
    const s = await server();
    const cases: Array<[Promise<{ status: number; body: Json }>, number, RegExp]> = [
      [postJson(`${s.url}/api/runs`, "{not json"), 400, /not valid JSON/],
      [postJson(`${s.url}/api/runs`, {}), 400, /Invalid run: message/],
      [postJson(`${s.url}/api/runs`, { message: "hi", extra: 1 }), 400, /extra/],
      [
        postJson(`${s.url}/api/runs`, { message: "hi", model: "gpt-9" }),
        400,
        /Unknown model "gpt-9". Available: replay, slow/,
      ],
      [postJson(`${s.url}/api/runs`, { message: "hi", limits: { maxSteps: 0 } }), 400, /maxSteps/],
      [
        postJson(`${s.url}/api/runs`, { message: "hi", conversationId: "conv_nope" }),
        404,
        /No conversation "conv_nope"/,
      ],
      [
        getJson(`${s.url}/api/runs/run_nope`),
        404,
        /No run "run_nope" on this server; GET \/api\/runs lists the runs/,
      ],
      [getJson(`${s.url}/api/runs/run_nope/events`), 404, /No run "run_nope"/],
      [getJson(`${s.url}/api/runs/run_x/events?after=-1`), 400, /after must be an event sequence number/],
      [postJson(`${s.url}/api/runs/run_nope/cancel`, {}), 404, /No run "run_nope"/],
      [
        postJson(`${s.url}/api/runs/run_nope/decisions`, {
          decisions: [{ callId: "c", decision: "approve" }],
        }),
        404,
        /No run/,
      ],
      [getJson(`${s.url}/api/runs?status=sleeping`), 400, /status must be one of/],
      [getJson(`${s.url}/api/runs?limit=0`), 400, /limit must be/],
      [getJson(`${s.url}/api/runs?cursor=!!`), 400, /cursor/],
      [getJson(`${s.url}/api/conversations/conv_nope`), 404, /No conversation/],
    ];
    for (const [request, status, message] of cases) {
      const response = await request;
      expect(response.status, JSON.stringify(response.body)).toBe(status);
      expect(response.body.error.message).toMatch(message);
      expect(typeof response.body.error.type).toBe("string");
    }
    expect((await getJson(`${s.url}/api/runs`)).body.data).toEqual([]);
  });

  it("decisions: unknown call 400, edited arguments re-validated 422 with the model-friendly message, nothing recorded", async () => {
    const s = await server();
    const { runId } = (await postJson(`${s.url}/api/runs`, { message: "delete" })).body;
    await untilPaused(s.url, runId);
    const before = (await getJson(`${s.url}/api/runs/${runId}`)).body;
    const callId = before.pending[0].callId;
    const decide = (decisions: unknown) => postJson(`${s.url}/api/runs/${runId}/decisions`, { decisions });
    const unknown = await decide([{ callId: "call_nope", decision: "approve" }]);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.message).toMatch(`has no tool call "call_nope". Pending: ${callId}`);
    const invalid = await decide([{ callId, decision: "approve", arguments: { path: 42 } }]);
    expect(invalid.status).toBe(422);
    expect(invalid.body.error.message).toMatch(/edited arguments for .* \(delete_file\) are invalid: .*path/);
    expect((await decide([{ callId, decision: "maybe" }])).status).toBe(400);
    expect((await decide([])).status).toBe(400);
    expect((await getJson(`${s.url}/api/runs/${runId}`)).body).toEqual(before);
    expect(s.tools.executed).toEqual([]);
    // A valid edit runs with the edited arguments.
    const edited = await decide([{ callId, decision: "approve", arguments: { path: "/tmp/other.log" } }]);
    expect(edited.status).toBe(200);
    await s.service.settled(runId);
    expect(s.tools.executed.map((e) => e.args)).toEqual([{ path: "/tmp/other.log" }]);
  });
});

describe("Runs API: decisions from several clients at once", () => {
  it("two clients each deciding one of two pending calls at the same time: the run resumes once and both calls run once", async () => {
    const turns = [
      {
        calls: [
          { name: "delete_file", arguments: { path: "/tmp/a.log" } },
          { name: "delete_file", arguments: { path: "/tmp/b.log" } },
        ],
      },
      { text: "Both deleted." },
    ];
    const s = await server(turns);
    const { runId } = (await postJson(`${s.url}/api/runs`, { message: "delete both" })).body;
    await untilPaused(s.url, runId);
    const { pending } = (await getJson(`${s.url}/api/runs/${runId}`)).body;
    expect(pending).toHaveLength(2);
    // Through the service, in one tick: over HTTP the two requests rarely overlap, here they always do.
    const [a, b] = await Promise.all(
      pending.map((p: { callId: string }, i: number) =>
        s.service.decide(runId, [{ callId: p.callId, decision: "approve" }], `client-${i}`),
      ),
    );
    expect([a?.ready, b?.ready].sort()).toEqual([false, true]);
    await s.service.settled(runId);
    const events = (await s.events.list(runId)).map((r) => r.event.type);
    expect(events.filter((t) => t === "run-resumed")).toHaveLength(1);
    expect(events.at(-1)).toBe("run-finished");
    expect(s.tools.executed.map((e) => e.args.path).sort()).toEqual(["/tmp/a.log", "/tmp/b.log"]);
  });
});

describe("Runs API: cancel, listing, conversations", () => {
  it("cancels a live run through its signal and a paused one at once; both streams end", async () => {
    const turns = [
      { calls: [{ name: "sleep", arguments: { ms: 5_000, label: "long" } }] },
      { text: "never reached" },
    ];
    const s = await server(turns);
    const { runId } = (await postJson(`${s.url}/api/runs`, { message: "wait" })).body;
    const events: SseEvent[] = [];
    const stream = readSse(`${s.url}/api/runs/${runId}/events`, (e) => {
      events.push(e);
    });
    // The long tool is running: the cancel reaches a live run.
    await vi.waitFor(() => expect(events.map((e) => e.event)).toContain("tool-started"), { timeout: 20_000 });
    const started = Date.now();
    const cancelled = await postJson(`${s.url}/api/runs/${runId}/cancel`, {});
    expect(cancelled).toMatchObject({ status: 200, body: { runId, status: "stopped" } });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await stream).ended).toBe("finished");
    expect(events.at(-1)?.data).toMatchObject({ type: "run-finished", stopReason: "aborted" });
    expect((await postJson(`${s.url}/api/runs/${runId}/cancel`, {})).status).toBe(409);

    const s2 = await server();
    const paused = (await postJson(`${s2.url}/api/runs`, { message: "delete" })).body.runId;
    const seen = await untilPaused(s2.url, paused);
    expect((await postJson(`${s2.url}/api/runs/${paused}/cancel`, {})).body.status).toBe("stopped");
    const rest: SseEvent[] = [];
    await readSse(`${s2.url}/api/runs/${paused}/events?after=${seen.at(-1)?.id}`, (e) => {
      rest.push(e);
    });
    expect(rest.map((e) => e.event)).toEqual(["approval-decided", "run-finished"]);
    const stopped = (await getJson(`${s2.url}/api/runs/${paused}`)).body;
    expect(stopped).toMatchObject({ status: "stopped", stopReason: "aborted", pending: [] });
    expect(stopped.steps[0].calls[0].approval).toMatchObject({ decision: "denied", by: "api" });
    const late = await postJson(`${s2.url}/api/runs/${paused}/decisions`, {
      decisions: [{ callId: stopped.steps[0].calls[0].id, decision: "approve" }],
    });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/already decided: it was denied by api/);
    expect(s2.tools.executed).toEqual([]);
  });

  it("lists runs by status with a cursor, and lists, reads and deletes conversations (not while a run is live)", async () => {
    const turns = [{ text: "Hello there." }, { text: "Hello again." }, { text: "And again." }];
    const s = await server(turns);
    const a = (await postJson(`${s.url}/api/runs`, { message: "one" })).body;
    await s.service.settled(a.runId);
    const b = (await postJson(`${s.url}/api/runs`, { message: "two", conversationId: a.conversationId }))
      .body;
    expect(b.conversationId).toBe(a.conversationId);
    await s.service.settled(b.runId);
    const c = (await postJson(`${s.url}/api/runs`, { message: "three" })).body;
    await s.service.settled(c.runId);

    const page1 = (await getJson(`${s.url}/api/runs?status=finished&limit=2`)).body;
    expect(page1.data.map((r: { runId: string }) => r.runId)).toEqual([c.runId, b.runId]);
    const page2 = (await getJson(`${s.url}/api/runs?status=finished&limit=2&cursor=${page1.nextCursor}`))
      .body;
    expect(page2.data.map((r: { runId: string }) => r.runId)).toEqual([a.runId]);
    expect(page2.nextCursor).toBeNull();
    expect((await getJson(`${s.url}/api/runs?status=paused`)).body.data).toEqual([]);

    const conversations = (await getJson(`${s.url}/api/conversations`)).body.data;
    expect(
      conversations.map((x: { conversationId: string; runs: number }) => [x.conversationId, x.runs]),
    ).toEqual([
      [c.conversationId, 1],
      [a.conversationId, 2],
    ]);
    const read = (await getJson(`${s.url}/api/conversations/${a.conversationId}`)).body;
    expect(read.messages.map((m: { role: string; content: string }) => `${m.role}:${m.content}`)).toEqual([
      "user:one",
      "assistant:Hello there.",
      "user:two",
      "assistant:Hello again.",
    ]);
    expect(read.runs.map((r: { runId: string }) => r.runId)).toEqual([a.runId, b.runId]);

    const deleted = await fetch(`${s.url}/api/conversations/${a.conversationId}`, { method: "DELETE" });
    expect(deleted.status).toBe(200);
    expect((await getJson(`${s.url}/api/conversations/${a.conversationId}`)).status).toBe(404);
    expect((await getJson(`${s.url}/api/runs/${a.runId}`)).status).toBe(404);
    expect(await s.events.list(a.runId)).toEqual([]);
    expect((await getJson(`${s.url}/api/runs/${c.runId}`)).status).toBe(200);
  });

  it("refuses to delete a conversation while its run is live (409) and leaves it whole", async () => {
    const turns = [{ calls: [{ name: "sleep", arguments: { ms: 400, label: "x" } }] }, { text: "done" }];
    const s = await server(turns);
    const { runId, conversationId } = (await postJson(`${s.url}/api/runs`, { message: "wait" })).body;
    const refused = await fetch(`${s.url}/api/conversations/${conversationId}`, { method: "DELETE" });
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      `has a run in progress (${runId})`,
    );
    await s.service.settled(runId);
    expect((await getJson(`${s.url}/api/runs/${runId}`)).body.status).toBe("finished");
  });

  it("refuses to delete a conversation whose run is paused for approval (409 naming it); the decision still stands", async () => {
    const s = await server();
    const { runId, conversationId } = (await postJson(`${s.url}/api/runs`, { message: "delete" })).body;
    await untilPaused(s.url, runId);
    const before = (await getJson(`${s.url}/api/runs/${runId}`)).body;
    expect(before.pending).toHaveLength(1);
    for (const query of ["", "?cancelRuns=false"]) {
      const refused = await fetch(`${s.url}/api/conversations/${conversationId}${query}`, {
        method: "DELETE",
      });
      expect(refused.status).toBe(409);
      const { message } = ((await refused.json()) as { error: { message: string } }).error;
      expect(message).toMatch(`has a run paused for approval (${runId})`);
      expect(message).toMatch("?cancelRuns=true");
    }
    const bad = await fetch(`${s.url}/api/conversations/${conversationId}?cancelRuns=yes`, {
      method: "DELETE",
    });
    expect(bad.status).toBe(400);
    // Nothing changed: the run still waits, and the person's decision still runs the call.
    expect((await getJson(`${s.url}/api/runs/${runId}`)).body).toEqual(before);
    expect((await getJson(`${s.url}/api/conversations/${conversationId}`)).status).toBe(200);
    const decided = await postJson(`${s.url}/api/runs/${runId}/decisions`, {
      decisions: [{ callId: before.pending[0].callId, decision: "approve" }],
    });
    expect(decided.status).toBe(200);
    await s.service.settled(runId);
    expect(s.tools.executed.map((e) => e.args)).toEqual([{ path: "/tmp/old.log" }]);
    // Once the run is over, the conversation can go.
    expect((await fetch(`${s.url}/api/conversations/${conversationId}`, { method: "DELETE" })).status).toBe(
      200,
    );
  });

  it("?cancelRuns=true cancels the paused run first (its call denied by the deleter), then deletes", async () => {
    const s = await server();
    const { runId, conversationId } = (await postJson(`${s.url}/api/runs`, { message: "delete" })).body;
    const seen = await untilPaused(s.url, runId);
    const watcher: SseEvent[] = [];
    const stream = readSse(`${s.url}/api/runs/${runId}/events?after=${seen.at(-1)?.id}`, (e) => {
      watcher.push(e);
    });
    const callId = (await getJson(`${s.url}/api/runs/${runId}`)).body.pending[0].callId;
    const deleted = await fetch(`${s.url}/api/conversations/${conversationId}?cancelRuns=true`, {
      method: "DELETE",
    });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toEqual({ conversationId, deletedRuns: [runId], cancelledRuns: [runId] });
    // A client watching the run saw it end, its call denied, before it went.
    expect((await stream).ended).toBe("finished");
    expect(watcher.map((e) => e.data)).toMatchObject([
      { type: "approval-decided", callId, decision: "denied", by: "api" },
      { type: "run-finished", status: "stopped", stopReason: "aborted" },
    ]);
    expect((await getJson(`${s.url}/api/conversations/${conversationId}`)).status).toBe(404);
    expect((await getJson(`${s.url}/api/runs/${runId}`)).status).toBe(404);
    expect(await s.events.list(runId)).toEqual([]);
    expect(s.tools.executed).toEqual([]);
    // The audit log keeps who dropped the decision, and why.
    expect(await s.store.listAudit(runId)).toContainEqual(
      expect.objectContaining({
        action: "deny",
        actor: "api",
        callId,
        detail: { reason: expect.stringMatching(/conversation was deleted/) },
      }),
    );
  });

  it("?cancelRuns=true also stops a run in progress, then deletes", async () => {
    const turns = [
      { text: "Hello." },
      { calls: [{ name: "sleep", arguments: { ms: 5_000, label: "x" } }] },
      { text: "done" },
    ];
    const s = await server(turns);
    const first = (await postJson(`${s.url}/api/runs`, { message: "one" })).body;
    await s.service.settled(first.runId);
    const { runId } = (
      await postJson(`${s.url}/api/runs`, { message: "wait", conversationId: first.conversationId })
    ).body;
    const deleted = await fetch(`${s.url}/api/conversations/${first.conversationId}?cancelRuns=true`, {
      method: "DELETE",
    });
    expect(deleted.status).toBe(200);
    expect(await deleted.json()).toMatchObject({ cancelledRuns: [runId] });
    expect((await getJson(`${s.url}/api/runs/${runId}`)).status).toBe(404);
    expect((await getJson(`${s.url}/api/runs/${first.runId}`)).status).toBe(404);
  });
});

describe("Run service: restart recovery", () => {
  it("resumes at start a run left running by a process that is gone", async () => {
    const db = await tempDbFile();
    cleanups.push(db.remove);
    const first = await openServer(db.file, [{ text: "Recovered and finished." }]);
    // What a crashed process leaves: a run marked running, owned by a pid that no longer exists.
    await first.store.createRun({
      id: "run_crashed1",
      conversationId: "conv_crashed1",
      model: "replay",
      options: { server: { model: "replay" } },
      limits: {},
      owner: `${os.hostname()}:2147483646`,
      messages: [{ role: "user", content: "finish me" }],
    });
    await first.close();
    const second = await server([{ text: "Recovered and finished." }], db.file);
    expect(second.recovered).toEqual(["run_crashed1"]);
    await second.service.settled("run_crashed1");
    const view = (await getJson(`${second.url}/api/runs/run_crashed1`)).body;
    expect(view).toMatchObject({ status: "finished", answer: "Recovered and finished." });
    const events: SseEvent[] = [];
    await readSse(`${second.url}/api/runs/run_crashed1/events`, (e) => {
      events.push(e);
    });
    expect(events.map((e) => e.event)[0]).toBe("run-resumed");
    expect(events.at(-1)?.event).toBe("run-finished");
  });
});
