/**
 * A refused decision answers the same on every surface that takes decisions: the agent's DecisionError reason, mapped
 * to a status by one table (DECISION_ERROR_STATUS), with the agent's one wording. A new surface is a new column here.
 */
import { afterEach, describe, expect, it } from "vitest";
import {
  GATED_TURNS,
  getJson,
  type Json,
  openServer,
  postJson,
  readSse,
  TestSocket,
  tempDbFile,
} from "./helpers.js";

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function untilPaused(url: string, runId: string): Promise<void> {
  await readSse(`${url}/api/runs/${runId}/events`, (e) => e.event !== "run-paused");
}

describe("decision errors: one reason, one status, one wording on /api and /ws", () => {
  it("unknown call 400, one call twice 400, invalid edited arguments 422, a call decided before 409 naming who", async () => {
    const db = await tempDbFile();
    cleanups.push(db.remove);
    const s = await openServer(db.file, GATED_TURNS);
    cleanups.push(() => s.close());
    const ws = await TestSocket.open(`${s.url.replace("http", "ws")}/ws`);
    cleanups.push(() => ws.close());

    const start = async () => {
      const { runId } = (await postJson(`${s.url}/api/runs`, { message: "delete" })).body;
      await untilPaused(s.url, runId);
      const view = (await getJson(`${s.url}/api/runs/${runId}`)).body;
      return { runId: runId as string, callId: view.pending[0].callId as string };
    };
    const paused = await start();
    const decided = await start();
    expect(
      (
        await postJson(`${s.url}/api/runs/${decided.runId}/decisions`, {
          decisions: [{ callId: decided.callId, decision: "deny" }],
        })
      ).status,
    ).toBe(200);

    let id = 0;
    const surfaces = {
      api: async (runId: string, decisions: unknown[]) => {
        const { status, body } = await postJson(`${s.url}/api/runs/${runId}/decisions`, { decisions });
        const error = (body as Json).error;
        return { status, code: error?.code as string, message: error?.message as string };
      },
      ws: async (runId: string, decisions: unknown[]) => {
        const reply = (await ws.request(++id, { type: "runs/decide", runId, decisions })) as Json;
        return {
          status: reply.status as number,
          code: reply.error?.code as string,
          message: reply.error?.message as string,
        };
      },
    };
    const rows: Array<[string, string, unknown[], number, RegExp]> = [
      [
        "unknown-call",
        paused.runId,
        [{ callId: "call_nope", decision: "approve" }],
        400,
        /has no tool call "call_nope"\. Pending: /,
      ],
      [
        "duplicate-call",
        paused.runId,
        [
          { callId: paused.callId, decision: "approve" },
          { callId: paused.callId, decision: "deny" },
        ],
        400,
        /appears twice in one batch; decide it once/,
      ],
      [
        "invalid-arguments",
        paused.runId,
        [{ callId: paused.callId, decision: "approve", arguments: { path: 42 } }],
        422,
        /edited arguments for .* \(delete_file\) are invalid: .*path/,
      ],
      [
        "already-decided",
        decided.runId,
        [{ callId: decided.callId, decision: "approve" }],
        409,
        /\(delete_file\) was already decided: it was denied by api at 20/,
      ],
    ];
    for (const [reason, runId, decisions, status, message] of rows) {
      const answers = { api: await surfaces.api(runId, decisions), ws: await surfaces.ws(runId, decisions) };
      for (const [surface, answer] of Object.entries(answers)) {
        expect({ reason, surface, ...answer }).toEqual({
          reason,
          surface,
          status,
          // The reason, in the error body's snake_case `code`: what a client branches on.
          code: reason.replaceAll("-", "_"),
          message: expect.stringMatching(message),
        });
      }
      expect(answers.ws.message).toBe(answers.api.message);
    }
    // Nothing was recorded by any refusal: the paused call still waits, and nothing ran.
    expect((await getJson(`${s.url}/api/runs/${paused.runId}`)).body).toMatchObject({
      status: "paused",
      pending: [{ callId: paused.callId }],
    });
    expect(s.tools.executed).toEqual([]);
  });
});
