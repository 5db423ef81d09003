/**
 * One HTTP error on every surface of `serve`: the same cases — a bad body, an unknown id, a conflict, a body too large,
 * no credentials — answered in the documented shape on the Runs API, conversations, the Tools API, the web UI's
 * endpoints, the three /v1 APIs and the WebSocket API. A new surface is a new row here.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReplayModel } from "../../src/models/replay-model.js";
import { ModelCatalog } from "../../src/server/model-catalog.js";
import { ToolSettings } from "../../src/server/tools-api/tool-settings.js";
import { InMemoryToolSettingsStore } from "../../src/store/in-memory-tool-settings-store.js";
import { createTestTools } from "../agent/helpers.js";
import { type RawResponse, send } from "./http.js";
import { GATED_TURNS, openServer, TestSocket, tempDbFile } from "./runs/helpers.js";

const TOKEN = "error-shapes-token";
const MAX_BODY_BYTES = 64 * 1024;
const auth = { authorization: `Bearer ${TOKEN}` };

type Shape = "openai" | "anthropic";
type Case = "bad body" | "unknown id" | "conflict" | "too large" | "unauthenticated";

/** A request of one surface for one case: what it sends, the status and code it must get (code: OpenAI shape only). */
interface HttpRow {
  surface: string;
  shape: Shape;
  case: Case;
  request: () => { path: string; method?: string; body?: string; headers?: Record<string, string> };
  status: number;
  code?: string;
}

let server: Awaited<ReturnType<typeof openServer>>;
let removeDb: () => Promise<void>;
/** A run paused on its gated call (its conversation cannot be deleted), and one already cancelled. */
let pausedRun: { runId: string; conversationId: string };
let endedRun: string;

async function startPausedRun(): Promise<{ runId: string; conversationId: string }> {
  const started = await send(`${server.url}/api/runs`, {
    headers: auth,
    body: JSON.stringify({ message: "delete the old log" }),
  });
  expect(started.status).toBe(202);
  for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
    const run = await send(`${server.url}/api/runs/${started.json.runId}`, { headers: auth });
    if (run.json?.status === "paused") return started.json;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error("the run never paused for its approval");
}

beforeAll(async () => {
  const db = await tempDbFile();
  removeDb = db.remove;
  const tools = createTestTools();
  server = await openServer(db.file, GATED_TURNS, {
    token: TOKEN,
    tools,
    server: {
      maxBodyBytes: MAX_BODY_BYTES,
      toolsApi: {
        settings: await ToolSettings.load({
          registry: tools.registry,
          store: new InMemoryToolSettingsStore(),
        }),
      },
      openai: {
        models: new ModelCatalog({ replay: { create: async () => createReplayModel([{ text: "hi" }]) } }),
      },
    },
  });
  pausedRun = await startPausedRun();
  const ended = await startPausedRun();
  expect(
    (await send(`${server.url}/api/runs/${ended.runId}/cancel`, { headers: auth, body: "{}" })).status,
  ).toBe(200);
  endedRun = ended.runId;
}, 60_000);

afterAll(async () => {
  await server?.close();
  await removeDb?.();
});

const tooLarge = () => JSON.stringify({ message: "x".repeat(MAX_BODY_BYTES) });
const chat = (model: string) => JSON.stringify({ model, messages: [{ role: "user", content: "hi" }] });

const ROWS: HttpRow[] = [
  // Runs
  {
    surface: "runs",
    shape: "openai",
    case: "bad body",
    request: () => ({ path: "/api/runs", body: "{}" }),
    status: 400,
    code: "invalid_body",
  },
  {
    surface: "runs",
    shape: "openai",
    case: "unknown id",
    request: () => ({ path: "/api/runs/run_nope" }),
    status: 404,
    code: "run_not_found",
  },
  {
    surface: "runs",
    shape: "openai",
    case: "conflict",
    request: () => ({ path: `/api/runs/${endedRun}/cancel`, body: "{}" }),
    status: 409,
    code: "run_ended",
  },
  {
    surface: "runs",
    shape: "openai",
    case: "too large",
    request: () => ({ path: "/api/runs", body: tooLarge() }),
    status: 413,
    code: "payload_too_large",
  },
  {
    surface: "runs",
    shape: "openai",
    case: "unauthenticated",
    request: () => ({ path: "/api/runs" }),
    status: 401,
    code: "unauthorized",
  },
  // Conversations
  {
    surface: "conversations",
    shape: "openai",
    case: "bad body",
    request: () => ({
      path: `/api/conversations/${pausedRun.conversationId}`,
      method: "PATCH",
      body: '{"title": ""}',
    }),
    status: 400,
    code: "invalid_body",
  },
  {
    surface: "conversations",
    shape: "openai",
    case: "unknown id",
    request: () => ({ path: "/api/conversations/conv_nope" }),
    status: 404,
    code: "conversation_not_found",
  },
  {
    surface: "conversations",
    shape: "openai",
    case: "conflict",
    request: () => ({ path: `/api/conversations/${pausedRun.conversationId}`, method: "DELETE" }),
    status: 409,
    code: "run_in_progress",
  },
  {
    surface: "conversations",
    shape: "openai",
    case: "too large",
    request: () => ({
      path: `/api/conversations/${pausedRun.conversationId}`,
      method: "PATCH",
      body: tooLarge(),
    }),
    status: 413,
    code: "payload_too_large",
  },
  {
    surface: "conversations",
    shape: "openai",
    case: "unauthenticated",
    request: () => ({ path: "/api/conversations" }),
    status: 401,
    code: "unauthorized",
  },
  // Tools API (it has no conflict: a call that may not run is a 403 or 404 from the call gate)
  {
    surface: "tools",
    shape: "openai",
    case: "bad body",
    request: () => ({ path: "/api/tools/add/call", body: "[1, 2]" }),
    status: 400,
    code: "invalid_body",
  },
  {
    surface: "tools",
    shape: "openai",
    case: "unknown id",
    request: () => ({ path: "/api/tools/no_such_tool" }),
    status: 404,
    code: "tool_not_found",
  },
  {
    surface: "tools",
    shape: "openai",
    case: "too large",
    request: () => ({ path: "/api/tools/add/call", body: tooLarge() }),
    status: 413,
    code: "payload_too_large",
  },
  {
    surface: "tools",
    shape: "openai",
    case: "unauthenticated",
    request: () => ({ path: "/api/tools" }),
    status: 401,
    code: "unauthorized",
  },
  // The web UI's own endpoints (reads only)
  {
    surface: "models",
    shape: "openai",
    case: "unauthenticated",
    request: () => ({ path: "/api/models" }),
    status: 401,
    code: "unauthorized",
  },
  {
    surface: "approvals",
    shape: "openai",
    case: "unauthenticated",
    request: () => ({ path: "/api/approvals" }),
    status: 401,
    code: "unauthorized",
  },
  // /v1: an unknown model is the unknown id; nothing there is stateful enough to conflict
  ...(["/v1/chat/completions", "/v1/responses"] as const).flatMap((path): HttpRow[] => [
    { surface: path, shape: "openai", case: "bad body", request: () => ({ path, body: "{}" }), status: 400 },
    {
      surface: path,
      shape: "openai",
      case: "unknown id",
      request: () => ({
        path,
        body: path.endsWith("responses") ? JSON.stringify({ model: "nope", input: "hi" }) : chat("nope"),
      }),
      status: 404,
      code: "model_not_found",
    },
    {
      surface: path,
      shape: "openai",
      case: "too large",
      request: () => ({ path, body: tooLarge() }),
      status: 413,
      code: "payload_too_large",
    },
    {
      surface: path,
      shape: "openai",
      case: "unauthenticated",
      request: () => ({ path, body: chat("replay") }),
      status: 401,
      code: "unauthorized",
    },
  ]),
  {
    surface: "/v1/messages",
    shape: "anthropic",
    case: "bad body",
    request: () => ({ path: "/v1/messages", body: "{}" }),
    status: 400,
  },
  {
    surface: "/v1/messages",
    shape: "anthropic",
    case: "unknown id",
    request: () => ({
      path: "/v1/messages",
      body: JSON.stringify({ model: "nope", max_tokens: 10, messages: [{ role: "user", content: "hi" }] }),
    }),
    status: 404,
  },
  {
    surface: "/v1/messages",
    shape: "anthropic",
    case: "too large",
    request: () => ({ path: "/v1/messages", body: tooLarge() }),
    status: 413,
  },
  {
    surface: "/v1/messages",
    shape: "anthropic",
    case: "unauthenticated",
    request: () => ({ path: "/v1/messages", body: "{}" }),
    status: 401,
  },
];

/** OpenAI's error body exactly: `{"error": {"message", "type", "param", "code"}}`, a snake_case code. */
function expectOpenAIError(response: RawResponse, status: number, code: string | undefined) {
  expect(response.status, response.body).toBe(status);
  expect(response.headers["content-type"]).toMatch(/^application\/json/);
  expect(Object.keys(response.json)).toEqual(["error"]);
  const error = response.json.error;
  expect(Object.keys(error).sort()).toEqual(["code", "message", "param", "type"]);
  expect(error.message).toMatch(/\S/);
  expect(error.type).toMatch(/^[a-z_]+_error$/);
  expect(error.param === null || typeof error.param === "string").toBe(true);
  expect(error.code).toMatch(/^[a-z][a-z0-9_]*$/);
  if (code) expect(error.code).toBe(code);
  // An HTTP client is told what to do over HTTP, never with the CLI's commands.
  expect(error.message).not.toMatch(/toolbridge runs|--db/);
}

/** Anthropic's error body exactly, as its SDKs read it: `{"type": "error", "error": {"type", "message"}}`. */
function expectAnthropicError(response: RawResponse, status: number) {
  expect(response.status, response.body).toBe(status);
  expect(response.json).toEqual({
    type: "error",
    error: { type: expect.stringMatching(/^[a-z_]+(_error|_large)$/), message: expect.stringMatching(/\S/) },
  });
}

describe("every HTTP surface answers the same cases in the documented shape", () => {
  it.each(ROWS.map((row) => [row.surface, row.case, row] as const))(
    "%s: %s",
    async (_surface, _case, row) => {
      const { path, method, body, headers } = row.request();
      const response = await send(`${server.url}${path}`, {
        ...(method ? { method } : {}),
        ...(body === undefined ? {} : { body }),
        headers: row.case === "unauthenticated" ? {} : { ...auth, ...headers },
      });
      if (row.shape === "anthropic") expectAnthropicError(response, row.status);
      else expectOpenAIError(response, row.status, row.code);
    },
  );

  it("a bad body names the field at fault in `param` where there is one", async () => {
    const decisions = await send(`${server.url}/api/runs/${pausedRun.runId}/decisions`, {
      headers: auth,
      body: JSON.stringify({ decisions: [{ callId: 7, decision: "approve" }] }),
    });
    expectOpenAIError(decisions, 400, "invalid_body");
    expect(decisions.json.error.param).toBe("decisions[0].callId");
    const limit = await send(`${server.url}/api/runs?limit=0`, { headers: auth });
    expectOpenAIError(limit, 400, "invalid_limit");
    expect(limit.json.error.param).toBe("limit");
    const chatBody = await send(`${server.url}/v1/chat/completions`, {
      headers: auth,
      body: JSON.stringify({ model: "replay", messages: [{ role: "tool", content: "x" }] }),
    });
    expectOpenAIError(chatBody, 400, undefined);
    expect(chatBody.json.error.param).toBe("messages[0].tool_call_id");
  });
});

describe("the WebSocket API answers the same cases with the same body, its status beside it", () => {
  /** `{"type": "error", "id", "status", "error": {…}}`: the body HTTP answers, and its status. */
  function expectWsError(reply: Record<string, unknown>, id: number, status: number, code: string) {
    expect(Object.keys(reply).sort()).toEqual(["error", "id", "status", "type"]);
    expect(reply).toMatchObject({ type: "error", id, status });
    const error = reply.error as Record<string, unknown>;
    expect(Object.keys(error).sort()).toEqual(["code", "message", "param", "type"]);
    expect(error.code).toBe(code);
  }

  it("bad body, unknown id and conflict: the codes HTTP gives for the same requests", async () => {
    const ws = await TestSocket.open(`${server.url.replace("http", "ws")}/ws`, auth);
    try {
      expectWsError(await ws.request(1, { type: "runs/start" }), 1, 400, "invalid_body");
      expectWsError(await ws.request(2, { type: "runs/get", runId: "run_nope" }), 2, 404, "run_not_found");
      expectWsError(await ws.request(3, { type: "runs/cancel", runId: endedRun }), 3, 409, "run_ended");
      expectWsError(
        await ws.request(4, { type: "tools/call", name: "no_such_tool" }),
        4,
        404,
        "tool_not_found",
      );
      // The same request over HTTP gets the same body.
      const http = await send(`${server.url}/api/runs/run_nope`, { headers: auth });
      const reply = await ws.request(5, { type: "runs/get", runId: "run_nope" });
      expect(reply.error).toEqual(http.json.error);
    } finally {
      ws.close();
    }
  });

  it("unauthenticated: a 401 reply, then the socket is closed (1008); too large: closed (1009) unread", async () => {
    const ws = await TestSocket.open(`${server.url.replace("http", "ws")}/ws`);
    expectWsError(await ws.request(1, { type: "tools/list" }), 1, 401, "unauthorized");
    await ws.waitFor(() => ws.closed !== undefined).catch(() => {});
    expect(ws.closed?.code).toBe(1008);

    const big = await TestSocket.open(`${server.url.replace("http", "ws")}/ws`, auth);
    big.send({ id: 1, type: "runs/start", message: "x".repeat(MAX_BODY_BYTES) });
    await big.waitFor(() => big.closed !== undefined).catch(() => {});
    expect(big.closed?.code).toBe(1009);
    expect(big.messages.filter((message) => message.id === 1)).toEqual([]);
  });
});
