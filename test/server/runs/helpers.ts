import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { createReplayModel, type ReplayTurn } from "../../../src/models/replay-model.js";
import { RunService } from "../../../src/server/runs-api/run-service.js";
import { type RunningServer, startServer } from "../../../src/server/start-server.js";
import { SqliteConversationEraser } from "../../../src/store/sqlite-conversation-eraser.js";
import { SqliteConversationTitles } from "../../../src/store/sqlite-conversation-titles.js";
import { SqliteRunEventLog } from "../../../src/store/sqlite-run-event-log.js";
import { SqliteStore } from "../../../src/store/sqlite-store.js";
import { ToolExecutor } from "../../../src/tools/tool-executor.js";
import { createTestTools } from "../../agent/helpers.js";

export interface SseEvent {
  id: number;
  event: string;
  data: Record<string, unknown> & { type: string };
}

/**
 * Read an SSE response frame by frame (a real HTTP client over loopback). `onEvent` returning false stops reading
 * (the connection is dropped, as a client going away would).
 */
export async function readSse(
  url: string,
  onEvent: (event: SseEvent) => unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; ended: "finished" | "stopped" }> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  if (!response.ok || !response.body) return { status: response.status, ended: "stopped" };
  const decoder = new TextDecoder();
  let buffer = "";
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      for (let end = buffer.indexOf("\n\n"); end !== -1; end = buffer.indexOf("\n\n")) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields = new Map<string, string>();
        for (const line of frame.split("\n")) {
          if (line.startsWith(":")) continue;
          const colon = line.indexOf(":");
          fields.set(line.slice(0, colon), line.slice(colon + 1).trimStart());
        }
        if (!fields.has("data")) continue;
        const event = {
          id: Number(fields.get("id")),
          event: fields.get("event") ?? "message",
          data: JSON.parse(fields.get("data") as string),
        };
        if (onEvent(event) === false) {
          controller.abort();
          return { status: response.status, ended: "stopped" };
        }
      }
    }
  } catch (error) {
    if ((error as Error).name !== "AbortError") throw error;
    return { status: response.status, ended: "stopped" };
  }
  return { status: response.status, ended: "finished" };
}

/** The `ws` package (the one @hono/node-ws uses); typed here, as the repo has no @types/ws. */
export interface WsClient {
  on(event: "open", listener: () => void): void;
  on(event: "message", listener: (data: Buffer) => void): void;
  on(event: "close", listener: (code: number, reason: Buffer) => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  on(event: "unexpected-response", listener: (req: unknown, res: { statusCode: number }) => void): void;
  send(data: string): void;
  close(): void;
  readonly readyState: number;
}
const WebSocketClass = (
  createRequire(import.meta.url)("ws") as {
    WebSocket: new (
      url: string,
      options?: { headers?: Record<string, string>; localAddress?: string },
    ) => WsClient;
  }
).WebSocket;

/** A WebSocket client that keeps every message it receives and can wait for one. */
export class TestSocket {
  readonly messages: Array<Record<string, unknown>> = [];
  readonly #waiters = new Set<() => void>();
  closed: { code: number; reason: string } | undefined;
  readonly socket: WsClient;

  private constructor(socket: WsClient) {
    this.socket = socket;
    socket.on("message", (data) => {
      this.messages.push(JSON.parse(data.toString("utf8")));
      for (const wake of [...this.#waiters]) wake();
    });
    socket.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString("utf8") };
      for (const wake of [...this.#waiters]) wake();
    });
  }

  /**
   * Connect; rejects with the HTTP status when the upgrade is refused. `localAddress` binds the client end (127.0.0.2,
   * … are loopback too on Linux: another client address).
   */
  static open(
    url: string,
    headers: Record<string, string> = {},
    options: { localAddress?: string } = {},
  ): Promise<TestSocket> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocketClass(url, { headers, ...options });
      socket.on("open", () => resolve(new TestSocket(socket)));
      socket.on("unexpected-response", (_req, res) =>
        reject(Object.assign(new Error("refused"), { status: res.statusCode })),
      );
      socket.on("error", reject);
    });
  }

  send(message: Record<string, unknown>): void {
    this.socket.send(JSON.stringify(message));
  }

  /** Wait for a message matching `match` (already received or still to come). */
  async waitFor(
    match: (message: Record<string, unknown>) => boolean,
    timeoutMs = 10_000,
  ): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(match);
      if (found) return found;
      if (this.closed)
        throw new Error(`socket closed (${this.closed.code} ${this.closed.reason}) before the message came`);
      if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          this.#waiters.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.max(1, deadline - Date.now()));
        this.#waiters.add(wake);
      });
    }
  }

  /** Send a request and wait for its reply (result or error with the same id). */
  async request(id: number, message: Record<string, unknown>): Promise<Record<string, unknown>> {
    this.send({ id, ...message });
    return this.waitFor((m) => m.id === id && (m.type === "result" || m.type === "error"));
  }

  close(): void {
    this.socket.close();
  }
}

export const GATED_TURNS: ReplayTurn[] = [
  { text: "I will delete it.", calls: [{ name: "delete_file", arguments: { path: "/tmp/old.log" } }] },
  { text: "Deleted /tmp/old.log as asked." },
];

/** A temporary SQLite file for a test; removed by the returned cleanup. */
export async function tempDbFile(): Promise<{ file: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "toolbridge-runs-api-"));
  return { file: path.join(dir, "toolbridge.db"), remove: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * `toolbridge serve` as the Runs API runs it: a SQLite file store, its event log, a run service over replay models
 * and the test tools (delete_file asks for approval), on port 0. `close()` stops server, service and store — a restart
 * is `close()` then `openServer(file, …)` again.
 */
export async function openServer(
  file: string,
  turns: ReplayTurn[],
  options: {
    token?: string;
    tools?: ReturnType<typeof createTestTools>;
    keepAliveMs?: number;
    maxBufferedBytes?: number;
    signInLimit?: Parameters<typeof startServer>[0]["signInLimit"];
    secureCookie?: boolean;
    /** More of serve's surfaces (the Tools API, /v1) and limits, as startServer takes them. */
    server?: Partial<Parameters<typeof startServer>[0]>;
  } = {},
) {
  const store = new SqliteStore(file);
  const events = new SqliteRunEventLog(store.db);
  const tools = options.tools ?? createTestTools();
  const executor = new ToolExecutor(tools.registry, { redact: false });
  const eraser = new SqliteConversationEraser(store.db);
  const titles = new SqliteConversationTitles(store.db);
  const service = new RunService({
    models: {
      names: () => ["replay", "slow"],
      defaultName: "replay",
      get: async (name) =>
        createReplayModel(turns, { id: name ?? "replay", chunkSize: name === "slow" ? 2 : 8 }),
    },
    store,
    events,
    executor,
    conversations: {
      erase: (id) => eraser.erase(id),
      unfinishedRuns: (id) => eraser.unfinishedRuns(id),
      titles: (ids) => titles.titles(ids),
      rename: (id, title) => titles.rename(id, title),
    },
  });
  const recovered = await service.recover();
  const server: RunningServer = await startServer({
    registry: tools.registry,
    executor,
    port: 0,
    ...(options.token ? { token: options.token } : {}),
    ...(options.signInLimit ? { signInLimit: options.signInLimit } : {}),
    ...(options.secureCookie ? { secureCookie: true } : {}),
    ...options.server,
    runs: {
      service,
      keepAliveMs: options.keepAliveMs ?? 1000,
      ...(options.maxBufferedBytes ? { maxBufferedBytes: options.maxBufferedBytes } : {}),
    },
  });
  return {
    server,
    service,
    store,
    events,
    tools,
    recovered,
    url: server.url,
    async close() {
      await server.close();
      await service.close();
      await store.close();
    },
  };
}

/** Response bodies, read loosely: the tests check their shape. */
// biome-ignore lint/suspicious/noExplicitAny: test-side JSON, checked by expect()
export type Json = Record<string, any>;

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Json };
}

export async function getJson(url: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { headers });
  return { status: response.status, body: (await response.json()) as Json };
}
