import { createHash } from "node:crypto";
import type { Server as HttpServer } from "node:http";
import { Hono } from "hono";
import { createMcpServer, followRegistryChanges, type McpServerOptions } from "../mcp/create-mcp-server.js";
import { McpApprovals } from "../mcp/mcp-approvals.js";
import { createMcpHttpHandler, type McpHttpHandler } from "../mcp/mcp-http-handler.js";
import type { ToolExecutor } from "../tools/tool-executor.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import { bearerTokenAuth } from "./bearer-token-auth.js";
import { bodySizeLimit } from "./body-size-limit.js";
import { hostOriginGuard } from "./host-origin-guard.js";
import { isLoopbackHost } from "./is-loopback-host.js";
import type { RunService } from "./runs-api/run-service.js";
import { createRunsRoutes, type RunsRoutesOptions } from "./runs-api/runs-routes.js";
import { mountWsApi, type WsApiOptions } from "./ws/ws-api.js";

/** Default request body limit: 4 MiB, the MCP SDK's own default. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface ServerAppOptions {
  registry: ToolRegistry;
  executor: ToolExecutor;
  /** When set, every route except /healthz needs `Authorization: Bearer <token>`. */
  token?: string;
  /** The address the app will listen on; on loopback, Host headers must name this machine. Default 127.0.0.1. */
  bindHost?: string;
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  /** Larger request bodies get 413. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Options for the MCP endpoint at /mcp (server name, instructions), or false to leave it out. */
  mcp?: Omit<McpServerOptions, "registry" | "executor"> | false;
  /**
   * The Runs API (/api/runs, /api/conversations; SSE event streams) and the WebSocket API at /ws, driven by this
   * service (the caller owns it and closes it after the server).
   */
  runs?: RunsRoutesOptions &
    Pick<WsApiOptions, "authenticate" | "maxBufferedBytes" | "authTimeoutMs"> & { service: RunService };
}

export interface ServerApp {
  /** The Hono app; later features add their routes to it. */
  app: Hono;
  /** The MCP endpoint's session handler, when /mcp is on. */
  mcp: McpHttpHandler | undefined;
  /** End MCP sessions and anything else the routes hold. The HTTP listener is the caller's (see startServer). */
  close(): Promise<void>;
  /** Hook the WebSocket API (when on) into the HTTP server's upgrade requests; startServer calls it. */
  injectWebSocket?: (server: HttpServer) => void;
}

/**
 * The HTTP app of `toolbridge serve`: security middleware for every route (Host/Origin check → 403, bearer token →
 * 401, body limit → 413, in that order), `/healthz`, and the MCP Streamable HTTP endpoint at `/mcp`.
 */
export function createServerApp(options: ServerAppOptions): ServerApp {
  const app = new Hono();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  app.use(
    "*",
    hostOriginGuard({
      loopbackOnly: isLoopbackHost(options.bindHost ?? "127.0.0.1"),
      ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
      ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    }),
  );
  // /ws checks its token itself: a browser cannot set headers on a WebSocket, so it may come in the first message.
  const skipPaths = options.runs ? ["/healthz", "/ws"] : ["/healthz"];
  if (options.token) app.use("*", bearerTokenAuth(options.token, { skipPaths }));
  app.use("*", bodySizeLimit(maxBodyBytes));

  app.get("/healthz", (c) => c.json({ ok: true }));

  let mcp: McpHttpHandler | undefined;
  let unsubscribe: (() => void) | undefined;
  if (options.mcp !== false) {
    const mcpOptions = options.mcp ?? {};
    // One set of approval settings (signing key, ledger) for every per-request server: a retry lands on a new one.
    const approvals = mcpOptions.approvals ?? new McpApprovals();
    const handler = createMcpHttpHandler({
      createServer: (era) =>
        createMcpServer(
          { ...mcpOptions, approvals, registry: options.registry, executor: options.executor },
          era,
        ),
      maxRequestBodySize: maxBodyBytes,
    });
    mcp = handler;
    unsubscribe = followRegistryChanges(options.registry, () => handler.toolsChanged());
    // With a token, the caller is the token (hashed: cooldowns and approval state are keyed by it, never the secret).
    const authInfo = options.token
      ? {
          token: "",
          clientId: `token:${createHash("sha256").update(options.token).digest("base64url").slice(0, 16)}`,
          scopes: [],
        }
      : undefined;
    app.all("/mcp", (c) => handler.handle(c.req.raw, authInfo));
  }

  let ws: ReturnType<typeof mountWsApi> | undefined;
  if (options.runs) {
    const { service, authenticate, maxBufferedBytes, authTimeoutMs, ...routeOptions } = options.runs;
    app.route("/api", createRunsRoutes(service, routeOptions));
    ws = mountWsApi(app, {
      registry: options.registry,
      executor: options.executor,
      runs: service,
      ...(options.token ? { token: options.token } : {}),
      ...(authenticate ? { authenticate } : {}),
      ...(maxBufferedBytes ? { maxBufferedBytes } : {}),
      ...(authTimeoutMs ? { authTimeoutMs } : {}),
    });
  }

  return {
    app,
    mcp,
    ...(ws ? { injectWebSocket: ws.injectWebSocket } : {}),
    async close() {
      unsubscribe?.();
      await ws?.close();
      await mcp?.close();
    },
  };
}
