import { randomUUID } from "node:crypto";
import {
  type AuthInfo,
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  type RequestId,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { InMemoryEventStore } from "./in-memory-event-store.js";
import type { McpEra } from "./mcp-request-context.js";
import { duplicateIdError, toolCallArgumentsError } from "./request-guards.js";

export interface McpHttpHandlerOptions {
  /** Makes the MCP server for one 2026 request or one 2025 session (see createMcpServer). */
  createServer: (era: McpEra) => Server;
  /** Sessions (2025 clients) idle longer than this are closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /** Open 2025 sessions at most; beyond it the least recently used one is closed. Default 1,000. */
  maxSessions?: number;
  /**
   * Open 2025 sessions per client — `authInfo.clientId` (`serve` passes the token's principal, else the client
   * address), else its stated name; beyond it its own oldest one is closed. Default 16.
   */
  maxSessionsPerClient?: number;
  /** Largest request body read (the app's limit applies first). */
  maxRequestBodySize?: number;
}

export interface McpHttpHandler {
  /** Answer one HTTP request to the MCP endpoint; `authInfo` names the caller when a token was checked. */
  handle(request: Request, authInfo?: AuthInfo): Promise<Response>;
  /** 2025 sessions now open. */
  readonly sessionCount: number;
  /** Tell every listening client (2025 sessions and 2026 `subscriptions/listen` streams) that the tools changed. */
  toolsChanged(): void;
  /** End every session and stream. */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  client: string;
  lastSeen: number;
  /** Ids of requests whose response is still being sent (a reused id is refused instead of hanging). */
  inFlight: Set<RequestId>;
}

function jsonResponse(body: unknown): Response {
  return new Response(JSON.stringify(body), { status: 200, headers: { "content-type": "application/json" } });
}

/** Call `done` once the response body has been sent or abandoned. */
function onFinished(response: Response, done: () => void): Response {
  if (!response.body) {
    done();
    return response;
  }
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      done();
    }
  };
  const body = response.body.pipeThrough(new TransformStream({ flush: finish }));
  const reader = body.getReader();
  const stream = new ReadableStream({
    async pull(controller) {
      const { value, done: end } = await reader.read();
      if (end) {
        finish();
        controller.close();
      } else controller.enqueue(value);
    },
    cancel(reason) {
      finish();
      return reader.cancel(reason);
    },
  });
  return new Response(stream, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * The `/mcp` endpoint for both protocol eras. Requests carrying the 2026-07-28 `_meta` envelope are served
 * statelessly by the SDK's handler (a fresh server per request, nothing kept: any instance can answer any request;
 * header rules and -32020/-32021/-32022 are the SDK's). Everything else is a 2025 client and gets sessions as before
 * (`initialize` opens one, `Mcp-Session-Id` carries it, DELETE ends it), because only a session can carry a pushed
 * `elicitation/create` (approvals) and an unsolicited `list_changed` to it. Host/Origin checks, auth and body limits
 * are the HTTP app's middleware.
 */
export function createMcpHttpHandler(options: McpHttpHandlerOptions): McpHttpHandler {
  const sessions = new Map<string, Session>();
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 1000;
  const perClient = options.maxSessionsPerClient ?? 16;
  const bodyLimit =
    options.maxRequestBodySize === undefined ? {} : { maxRequestBodySize: options.maxRequestBodySize };
  const modern = createMcpHandler(({ era }) => options.createServer(era), { legacy: "reject", ...bodyLimit });

  const endSession = (id: string) => {
    const session = sessions.get(id);
    if (!session) return;
    sessions.delete(id);
    void session.transport.close().catch(() => {});
  };

  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, session] of sessions) if (session.lastSeen < cutoff) endSession(id);
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  /** Least recently used session among `candidates`. */
  const oldest = (candidates: Iterable<[string, Session]>) => {
    let found: [string, Session] | undefined;
    for (const entry of candidates) if (!found || entry[1].lastSeen < found[1].lastSeen) found = entry;
    return found?.[0];
  };

  /**
   * Make room for one more session of `client`, so a well-behaved client always gets in: a client at its own limit
   * loses its least recently used session; at the global limit the busiest client loses its least recently used one.
   */
  const makeRoom = (client: string) => {
    const mine = [...sessions].filter(([, s]) => s.client === client);
    if (mine.length >= perClient) {
      const id = oldest(mine);
      if (id) endSession(id);
    }
    if (sessions.size >= maxSessions) {
      const counts = new Map<string, number>();
      for (const s of sessions.values()) counts.set(s.client, (counts.get(s.client) ?? 0) + 1);
      const busiest = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
      const id = oldest([...sessions].filter(([, s]) => s.client === busiest));
      if (id) endSession(id);
    }
  };

  async function openSession(
    request: Request,
    body: unknown,
    authInfo: AuthInfo | undefined,
  ): Promise<Response> {
    const stated = (body as { params?: { clientInfo?: { name?: unknown } } }).params?.clientInfo?.name;
    const client = authInfo?.clientId ?? `name:${typeof stated === "string" ? stated : "unknown"}`;
    makeRoom(client);
    const server = options.createServer("legacy");
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Resumable streams: a client whose SSE stream breaks reconnects with Last-Event-ID and misses nothing.
      eventStore: new InMemoryEventStore(),
      retryInterval: 1000,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, client, lastSeen: Date.now(), inFlight: new Set() });
      },
      onsessionclosed: (id) => {
        sessions.delete(id);
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      void server.close().catch(() => {});
    };
    await server.connect(transport);
    const response = await transport.handleRequest(request, {
      parsedBody: body,
      ...(authInfo ? { authInfo } : {}),
    });
    // A failed initialize leaves no session behind.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) void transport.close().catch(() => {});
    return response;
  }

  return {
    get sessionCount() {
      return sessions.size;
    },

    toolsChanged() {
      modern.notify.toolsChanged();
      for (const session of sessions.values()) void session.server.sendToolListChanged().catch(() => {});
    },

    async handle(request, authInfo) {
      let body: unknown;
      if (request.method === "POST") {
        try {
          body = await request.clone().json();
        } catch {
          return jsonRpcError(400, -32700, "Parse error: the request body is not valid JSON.");
        }
      }
      const badArguments = toolCallArgumentsError(body);
      if (badArguments) return jsonResponse(badArguments);
      if (!(await isLegacyRequest(request, body, bodyLimit))) {
        return modern.fetch(request, { parsedBody: body, ...(authInfo ? { authInfo } : {}) });
      }
      const sessionId = request.headers.get("mcp-session-id");
      if (sessionId) {
        const session = sessions.get(sessionId);
        if (!session) {
          return jsonRpcError(
            404,
            -32001,
            "Session not found: it ended or expired; send initialize to start a new one.",
          );
        }
        session.lastSeen = Date.now();
        const { id, method } = (body ?? {}) as { id?: RequestId; method?: unknown };
        const tracked =
          request.method === "POST" && typeof method === "string" && id !== undefined && id !== null;
        if (tracked && session.inFlight.has(id)) return jsonResponse(duplicateIdError(id));
        if (tracked) session.inFlight.add(id);
        const response = await session.transport.handleRequest(request, {
          ...(request.method === "POST" ? { parsedBody: body } : {}),
          ...(authInfo ? { authInfo } : {}),
        });
        return tracked ? onFinished(response, () => session.inFlight.delete(id)) : response;
      }
      if (request.method === "POST" && isInitializeRequest(body)) return openSession(request, body, authInfo);
      if (request.method === "POST" || request.method === "GET" || request.method === "DELETE") {
        return jsonRpcError(
          400,
          -32000,
          "Bad Request: a 2025 client sends initialize first, then the Mcp-Session-Id it returns; a 2026-07-28 client sends MCP-Protocol-Version and the _meta envelope on every request.",
        );
      }
      return new Response(null, { status: 405, headers: { allow: "GET, POST, DELETE" } });
    },

    async close() {
      clearInterval(sweep);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled([modern.close(), ...open.map((session) => session.transport.close())]);
    },
  };
}
