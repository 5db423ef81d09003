/** The WebSocket API at /ws with a real client (the `ws` package) over loopback. */
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../../../src/tools/define-tool.js";
import { createTestTools } from "../../agent/helpers.js";
import { GATED_TURNS, getJson, openServer, postJson, readSse, TestSocket, tempDbFile } from "./helpers.js";

const TOKEN = "ws-test-token";
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

async function server(options: Parameters<typeof openServer>[2] = {}) {
  const db = await tempDbFile();
  cleanups.push(db.remove);
  const opened = await openServer(db.file, GATED_TURNS, options);
  cleanups.push(() => opened.close());
  return { ...opened, ws: `${opened.url.replace("http", "ws")}/ws` };
}

async function socket(url: string, headers: Record<string, string> = {}) {
  const s = await TestSocket.open(url, headers);
  cleanups.push(() => s.close());
  return s;
}

describe("WebSocket API", () => {
  it("refuses a foreign Origin at the upgrade with 403, like every route", async () => {
    const s = await server();
    await expect(TestSocket.open(s.ws, { origin: "https://evil.example" })).rejects.toMatchObject({
      status: 403,
    });
    expect((await fetch(`${s.url}/api/runs`, { headers: { origin: "https://evil.example" } })).status).toBe(
      403,
    );
    // Its own origin is fine.
    const ok = await socket(s.ws, { origin: s.url });
    expect((await ok.request(1, { type: "tools/list" })).type).toBe("result");
  });

  it("with a token: Bearer at the upgrade, or {type:'auth'} as the first message; anything else is refused", async () => {
    const s = await server({ token: TOKEN });
    expect((await fetch(`${s.url}/api/runs`)).status).toBe(401);

    const first = await socket(s.ws);
    const refused = await first.request(1, { type: "tools/list" });
    expect(refused).toMatchObject({
      type: "error",
      status: 401,
      error: { type: "authentication_error", code: "unauthorized" },
    });
    await first.waitFor(() => first.closed !== undefined).catch(() => {});
    expect(first.closed?.code).toBe(1008);

    const wrong = await socket(s.ws);
    expect(await wrong.request(1, { type: "auth", token: "guess" })).toMatchObject({ type: "error" });
    await wrong.waitFor(() => wrong.closed !== undefined).catch(() => {});
    expect(wrong.closed?.code).toBe(1008);

    const byMessage = await socket(s.ws);
    expect(await byMessage.request(1, { type: "auth", token: TOKEN })).toMatchObject({
      type: "result",
      result: { authenticated: true },
    });
    expect((await byMessage.request(2, { type: "tools/list" })).type).toBe("result");

    const byHeader = await socket(s.ws, { authorization: `Bearer ${TOKEN}` });
    expect((await byHeader.request(1, { type: "tools/list" })).type).toBe("result");
  });

  it("a browser's session cookie (from POST /api/session) authenticates the upgrade; a forged one does not", async () => {
    const s = await server({ token: TOKEN });
    const signIn = await fetch(`${s.url}/api/session`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: s.url },
      body: JSON.stringify({ token: TOKEN }),
    });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    expect(cookie).toMatch(/^toolbridge_session=./);

    const withCookie = await socket(s.ws, { cookie, origin: s.url });
    expect((await withCookie.request(1, { type: "tools/list" })).type).toBe("result");

    const forged = await socket(s.ws, { cookie: `${cookie.slice(0, -2)}xx`, origin: s.url });
    expect(await forged.request(1, { type: "tools/list" })).toMatchObject({ type: "error" });
    await forged.waitFor(() => forged.closed !== undefined).catch(() => {});
    expect(forged.closed?.code).toBe(1008);
  });

  it("answers malformed messages with an error and stays usable; lists and calls tools", async () => {
    const s = await server();
    const ws = await socket(s.ws);
    ws.socket.send("{nope");
    expect(await ws.waitFor((m) => m.type === "error")).toMatchObject({
      status: 400,
      error: { type: "invalid_request_error", code: "invalid_json" },
    });
    expect(await ws.request(1, { kind: "x" })).toMatchObject({
      type: "error",
      error: { message: expect.stringMatching(/needs a string "type"/) },
    });
    expect(await ws.request(2, { type: "runs/teleport" })).toMatchObject({
      type: "error",
      error: { message: expect.stringMatching(/Unknown message type "runs\/teleport"/) },
    });
    expect(await ws.request(3, { type: "runs/decide", runId: "run_x", decisions: "yes" })).toMatchObject({
      type: "error",
      status: 400,
      error: { code: "invalid_body", param: "decisions" },
    });
    const list = await ws.request(4, { type: "tools/list" });
    expect((list.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain("add");
    expect(await ws.request(5, { type: "tools/call", name: "add", arguments: { a: 2, b: 3 } })).toMatchObject(
      {
        type: "result",
        result: { content: [{ type: "text", text: "5" }] },
      },
    );
    expect(await ws.request(6, { type: "tools/call", name: "nope" })).toMatchObject({
      type: "error",
      status: 404,
      error: { type: "not_found_error", code: "tool_not_found" },
    });
    expect(ws.closed).toBeUndefined();
  });

  it("pushes tools/list_changed when the registry changes", async () => {
    const tools = createTestTools();
    const s = await server({ tools });
    const ws = await socket(s.ws);
    await ws.request(1, { type: "tools/list" });
    tools.registry.register(
      defineTool({ name: "shout", description: "Shout.", inputSchema: z.object({}), handler: () => "HEY" }),
    );
    await ws.waitFor((m) => m.type === "tools/list_changed");
  });

  it("starts a run, streams its events, re-sends pending approvals on (re)subscribe, decides and cancels", async () => {
    const s = await server();
    const ws = await socket(s.ws);
    const started = await ws.request(1, { type: "runs/start", message: "delete the old log" });
    const { runId } = started.result as { runId: string };
    await ws.request(2, { type: "runs/subscribe", runId });
    const requested = await ws.waitFor(
      (m) => m.type === "run-event" && (m.event as { type: string }).type === "run-paused",
    );
    const lastSeq = requested.seq as number;

    // A client that reconnects after the approval-requested event still gets the pending calls.
    const again = await socket(s.ws);
    await again.request(1, { type: "runs/subscribe", runId, after: lastSeq });
    const pending = await again.waitFor((m) => m.type === "approval-requested");
    expect(pending).toMatchObject({
      runId,
      calls: [{ name: "delete_file", arguments: { path: "/tmp/old.log" } }],
    });
    const callId = (pending.calls as Array<{ callId: string }>)[0]?.callId;

    const decided = await again.request(2, {
      type: "runs/decide",
      runId,
      decisions: [{ callId, decision: "deny", reason: "keep it" }],
    });
    expect(decided).toMatchObject({ type: "result", result: { ready: true } });
    await ws.waitFor((m) => m.type === "run-event" && (m.event as { type: string }).type === "run-finished");
    const seqs = ws.messages.filter((m) => m.type === "run-event").map((m) => m.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));
    expect(s.tools.executed).toEqual([]);
    const second = await again.request(3, {
      type: "runs/decide",
      runId,
      decisions: [{ callId, decision: "approve" }],
    });
    expect(second).toMatchObject({
      type: "error",
      status: 409,
      error: { code: "already_decided", message: expect.stringMatching(/denied by websocket/) },
    });
    expect(await again.request(4, { type: "runs/cancel", runId })).toMatchObject({
      type: "error",
      status: 409,
      error: { code: "run_ended" },
    });
    expect((await again.request(5, { type: "runs/get", runId })).result).toMatchObject({
      runId,
      status: "finished",
    });
  });

  it("closes a socket whose client stops reading (1013) instead of buffering without limit", async () => {
    const tools = createTestTools();
    tools.registry.register(
      defineTool({
        name: "big",
        description: "A large result.",
        inputSchema: z.object({}),
        annotations: { readOnlyHint: true },
        handler: () => "x".repeat(200_000),
      }),
    );
    const db = await tempDbFile();
    cleanups.push(db.remove);
    const opened = await openServer(db.file, GATED_TURNS, { tools, maxBufferedBytes: 64 * 1024 });
    cleanups.push(() => opened.close());
    const ws = await socket(`${opened.url.replace("http", "ws")}/ws`);
    const raw = (ws.socket as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    raw.pause();
    // Results are cut at 20,000 characters by the executor: 500 of them are ~10 MB, more than loopback buffers hold.
    for (let i = 0; i < 500; i++) ws.send({ id: i, type: "tools/call", name: "big", arguments: {} });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    raw.resume();
    await ws.waitFor(() => ws.closed !== undefined).catch(() => {});
    expect(ws.closed?.code).toBe(1013);
    // Far fewer than the 500 results asked for were queued for it.
    expect(ws.messages.length).toBeLessThan(500);
  });
});

describe("SSE and REST next to the WebSocket", () => {
  it("GET /api/runs/{id} is 401 without the token when the server has one; SSE with it works", async () => {
    const s = await server({ token: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const { runId } = (await postJson(`${s.url}/api/runs`, { message: "go" }, auth)).body;
    expect((await getJson(`${s.url}/api/runs/${runId}`)).status).toBe(401);
    const types: string[] = [];
    await readSse(
      `${s.url}/api/runs/${runId}/events`,
      (e) => types.push(e.event) && e.event !== "run-paused",
      auth,
    );
    expect(types.at(-1)).toBe("run-paused");
  });
});
