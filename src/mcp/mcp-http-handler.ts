import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { InMemoryEventStore } from "./in-memory-event-store.js";

export interface McpHttpHandlerOptions {
  /** Makes the MCP server for a new session (see createMcpServer). */
  createServer: () => Server;
  /** Sessions idle longer than this are closed. Default 30 minutes. */
  sessionIdleMs?: number;
  /** New sessions beyond this many are refused with 503 until others end. Default 1,000. */
  maxSessions?: number;
}

export interface McpHttpHandler {
  /** Answer one HTTP request to the MCP endpoint (POST, GET for the SSE stream, DELETE to end a session). */
  handle(request: Request): Promise<Response>;
  /** Sessions now open. */
  readonly sessionCount: number;
  /** End every session. */
  close(): Promise<void>;
}

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  lastSeen: number;
}

function jsonRpcError(status: number, code: number, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }), {
    status,
    headers: { "content-type": "application/json" },
  });
}

/**
 * The Streamable HTTP side of the MCP endpoint, with sessions per the spec: `initialize` without a session id opens
 * one (its id comes back in `Mcp-Session-Id`), later requests carry it, an unknown id gets 404 so the client starts
 * over, DELETE ends it. Host/Origin checks, auth and body limits are the HTTP app's middleware, not this handler's.
 */
export function createMcpHttpHandler(options: McpHttpHandlerOptions): McpHttpHandler {
  const sessions = new Map<string, Session>();
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const maxSessions = options.maxSessions ?? 1000;

  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - idleMs;
      for (const [id, session] of sessions) {
        if (session.lastSeen < cutoff) {
          sessions.delete(id);
          void session.transport.close().catch(() => {});
        }
      }
    },
    Math.min(idleMs, 60_000),
  );
  sweep.unref();

  async function openSession(request: Request, body: unknown): Promise<Response> {
    if (sessions.size >= maxSessions) {
      return jsonRpcError(
        503,
        -32000,
        "Too many open MCP sessions; end one (DELETE /mcp) or try again later.",
      );
    }
    const server = options.createServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Resumable streams: a client whose SSE stream breaks reconnects with Last-Event-ID and misses nothing.
      eventStore: new InMemoryEventStore(),
      retryInterval: 1000,
      onsessioninitialized: (id) => {
        sessions.set(id, { transport, server, lastSeen: Date.now() });
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
    const response = await transport.handleRequest(request, { parsedBody: body });
    // A failed initialize leaves no session behind.
    if (!transport.sessionId || !sessions.has(transport.sessionId)) void transport.close().catch(() => {});
    return response;
  }

  return {
    get sessionCount() {
      return sessions.size;
    },

    async handle(request) {
      const sessionId = request.headers.get("mcp-session-id");
      let body: unknown;
      if (request.method === "POST") {
        try {
          body = await request.json();
        } catch {
          return jsonRpcError(400, -32700, "Parse error: the request body is not valid JSON.");
        }
      }
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
        return session.transport.handleRequest(
          request,
          request.method === "POST" ? { parsedBody: body } : {},
        );
      }
      if (request.method === "POST" && isInitializeRequest(body)) return openSession(request, body);
      if (request.method === "POST" || request.method === "GET" || request.method === "DELETE") {
        return jsonRpcError(
          400,
          -32000,
          "Bad Request: send initialize first, then the Mcp-Session-Id it returns.",
        );
      }
      return new Response(null, { status: 405, headers: { allow: "GET, POST, DELETE" } });
    },

    async close() {
      clearInterval(sweep);
      const open = [...sessions.values()];
      sessions.clear();
      await Promise.allSettled(open.map((session) => session.transport.close()));
    },
  };
}
