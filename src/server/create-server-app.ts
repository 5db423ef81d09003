import type { Server as HttpServer } from "node:http";
import { type Context, Hono } from "hono";
import { createMcpServer, followRegistryChanges, type McpServerOptions } from "../mcp/create-mcp-server.js";
import { McpApprovals } from "../mcp/mcp-approvals.js";
import { createMcpHttpHandler, type McpHttpHandler } from "../mcp/mcp-http-handler.js";
import type { ApprovalPolicyConfig } from "../tools/approval-policy.js";
import { CallGate } from "../tools/call-gate.js";
import type { ToolExecutor } from "../tools/tool-executor.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import { listApiRoutes } from "./api-index.js";
import { bearerTokenAuth } from "./bearer-token-auth.js";
import { bodySizeLimit } from "./body-size-limit.js";
import { errorResponse, onHttpError } from "./error-response.js";
import { hostOriginGuard } from "./host-origin-guard.js";
import { notFound } from "./http-error.js";
import { isLoopbackHost } from "./is-loopback-host.js";
import type { ModelCatalog } from "./model-catalog.js";
import { createOpenAIRoutes } from "./openai/openai-routes.js";
import { listPendingApprovals } from "./runs-api/pending-approvals.js";
import type { RunService } from "./runs-api/run-service.js";
import { createRunsRoutes, type RunsRoutesOptions } from "./runs-api/runs-routes.js";
import { callerIdentity, tokenPrincipal } from "./security/caller-identity.js";
import { corsForOrigins, normalizeOrigin } from "./security/cors-for-origins.js";
import { rejectTokenInUrl } from "./security/reject-token-in-url.js";
import { sessionCookieOf, verifySessionValue } from "./security/session-cookie.js";
import { createSessionRoutes } from "./security/session-routes.js";
import {
  SignInFailureLimiter,
  type SignInFailureLimiterOptions,
} from "./security/sign-in-failure-limiter.js";
import { refuseLimitedClients, remoteAddressOf, signInAttempts } from "./security/sign-in-limit.js";
import { createToolsApi, type ToolsApiOptions } from "./tools-api/create-tools-api.js";
import { createWebUiHandler, isWebUiRequest } from "./web-ui/web-ui-routes.js";
import { PendingApprovalsFeed } from "./ws/pending-approvals-feed.js";
import { mountWsApi, type WsApiOptions } from "./ws/ws-api.js";

/** Default request body limit: 4 MiB, the MCP SDK's own default. */
export const DEFAULT_MAX_BODY_BYTES = 4 * 1024 * 1024;

export interface ServerAppOptions {
  registry: ToolRegistry;
  executor: ToolExecutor;
  /** When set, every route except /healthz needs `Authorization: Bearer <token>`. */
  token?: string;
  /**
   * With a token: how many wrong tokens a client (remote address) may send per window before every route answers it
   * 429 with Retry-After until the window ends (default 10 per 60 s, 10 000 clients remembered). A limiter instance
   * may be passed (tests move its clock); `clientAddress` says who a request comes from (default: the socket's peer).
   */
  signInLimit?:
    | (SignInFailureLimiterOptions & {
        limiter?: SignInFailureLimiter;
        clientAddress?: (c: Context) => string | undefined;
      })
    | undefined;
  /** Mark the session cookie `Secure`: for a server reached over HTTPS (a TLS proxy in front). */
  secureCookie?: boolean;
  /** The address the app will listen on; on loopback, Host headers must name this machine. Default 127.0.0.1. */
  bindHost?: string;
  allowedHosts?: readonly string[];
  allowedOrigins?: readonly string[];
  /** Larger request bodies get 413. Default 4 MiB. */
  maxBodyBytes?: number;
  /** Options for the MCP endpoint at /mcp (server name, instructions), or false to leave it out. */
  mcp?: Omit<McpServerOptions, "registry" | "executor" | "gate"> | false;
  /** The named models of the /v1 API (models, chat completions, responses, messages); off when absent. */
  openai?: { models: ModelCatalog };
  /**
   * Browser origins allowed to call the server cross-origin with credentials (CORS): their preflights are answered,
   * and they pass the Origin check. No other origin gets a CORS header.
   */
  corsOrigins?: readonly string[];
  /**
   * The Tools API under /api (tools, tool settings, mounted MCP servers). Its settings also govern /mcp: switched-off
   * tools are hidden, and MCP approvals use the same policies unless `mcp.approvals` is given.
   */
  toolsApi?: Omit<ToolsApiOptions, "registry" | "executor" | "gate" | "callerOf">;
  /**
   * The approval policies of every surface that runs tools here (`/api`, `/ws`, `/mcp`), applied by one call gate.
   * Default: the Tools API's settings (API settings over the config), else `mcp.approvals`' policies.
   */
  approval?: ApprovalPolicyConfig;
  /**
   * The Runs API (/api/runs, /api/conversations; SSE event streams) and the WebSocket API at /ws, driven by this
   * service (the caller owns it and closes it after the server).
   */
  runs?: RunsRoutesOptions &
    Pick<WsApiOptions, "authenticate" | "maxBufferedBytes" | "authTimeoutMs" | "maxUnauthenticatedBytes"> & {
      service: RunService;
    };
  /**
   * The web UI at `/` (every GET outside /api, /v1, /mcp, /ws): the files `npm run build` puts in `dist/web`, or those
   * of `dir`. On by default; false leaves it out (those paths are then 404).
   */
  webUi?: { dir?: string } | false;
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
 * The HTTP app of `toolbridge serve`: security middleware for every route (Host/Origin check → 403, CORS for the named
 * origins, credentials in the URL → 400, too many wrong tokens → 429, bearer token or session cookie → 401, body
 * limit → 413, in that order),
 * `/healthz`, `/api/session`, the Tools API under `/api`, and the MCP Streamable HTTP endpoint at `/mcp`.
 */
export function createServerApp(options: ServerAppOptions): ServerApp {
  const app = new Hono();
  // Every route and guard throws its refusal; it is written here, in the shape of the surface (errorResponse).
  app.onError(onHttpError);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  const corsOrigins = (options.corsOrigins ?? []).map(normalizeOrigin);
  const allowedOrigins = [...(options.allowedOrigins ?? []), ...corsOrigins];
  app.use(
    "*",
    hostOriginGuard({
      loopbackOnly: isLoopbackHost(options.bindHost ?? "127.0.0.1"),
      // A server started with --secure-cookie is reached over HTTPS (a TLS proxy in front): its pages are https.
      scheme: options.secureCookie ? "https" : "http",
      ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
      ...(allowedOrigins.length > 0 ? { allowedOrigins } : {}),
    }),
  );
  // Preflights carry no credentials: answered before the token check, for the named origins only.
  if (corsOrigins.length > 0) app.use("*", corsForOrigins(corsOrigins));
  app.use("*", rejectTokenInUrl());
  // /api/session is where a browser presents the token to get its cookie; it checks the token itself. /ws too: a
  // browser cannot set headers on a WebSocket, so its token may come in the first message (or the session cookie).
  const skipPaths = ["/healthz", "/api/session", ...(options.runs ? ["/ws"] : [])];
  // Guessing the token: every check below reports failures here, and a client past the limit is refused on every
  // route (/api/session and /ws included) before any credential it sends is compared.
  const limit = options.signInLimit ?? {};
  const attempts = options.token
    ? signInAttempts(limit.limiter ?? new SignInFailureLimiter(limit), limit.clientAddress ?? remoteAddressOf)
    : undefined;
  if (attempts) app.use("*", refuseLimitedClients(attempts, { skipPaths: ["/healthz"] }));
  const webUi = options.webUi === false ? undefined : createWebUiHandler(options.webUi ?? {});
  if (options.token)
    app.use(
      "*",
      bearerTokenAuth(options.token, {
        skipPaths,
        attempts,
        ...(webUi ? { isPublic: webUi.isPublic } : {}),
      }),
    );
  app.use("*", bodySizeLimit(maxBodyBytes));

  app.get("/healthz", (c) => c.json({ ok: true }));
  // API clients read JSON errors: an unknown route under /api, /v1 or /ws says so in the errors' shape.
  app.notFound((c) =>
    /^\/(api|v1|ws)(\/|$)/.test(c.req.path)
      ? errorResponse(
          c.req.path,
          notFound(`No route ${c.req.method} ${c.req.path} on this server.`, "route_not_found"),
        )
      : c.text("Not Found", 404),
  );
  app.route(
    "/api/session",
    createSessionRoutes(options.token, { attempts, secureCookie: options.secureCookie === true }),
  );

  // With a token, the caller is its principal; without, the client's address (see callerIdentity).
  const principal = options.token ? tokenPrincipal(options.token) : undefined;
  const callerOf = (c: Context) => callerIdentity(c, principal);
  const mcpOptions = options.mcp === false ? undefined : (options.mcp ?? {});
  const approval = options.approval ?? options.toolsApi?.settings.approval ?? mcpOptions?.approvals?.policies;
  // The one decision whether a call runs, for /api, /ws and /mcp alike (each renders its answer).
  const gate = new CallGate(options.registry, approval);

  if (options.toolsApi) {
    app.route(
      "/api",
      createToolsApi({
        ...options.toolsApi,
        registry: options.registry,
        executor: options.executor,
        gate,
        callerOf,
      }),
    );
  }

  let mcp: McpHttpHandler | undefined;
  let unsubscribe: (() => void) | undefined;
  if (mcpOptions) {
    // One set of approval settings (signing key, ledger) for every per-request server: a retry lands on a new one.
    const approvals = mcpOptions.approvals ?? new McpApprovals(approval ? { policies: approval } : {});
    const handler = createMcpHttpHandler({
      createServer: (era) =>
        createMcpServer(
          { ...mcpOptions, approvals, gate, registry: options.registry, executor: options.executor },
          era,
        ),
      maxRequestBodySize: maxBodyBytes,
    });
    mcp = handler;
    unsubscribe = followRegistryChanges(options.registry, () => handler.toolsChanged());
    // The caller travels as authInfo.clientId: the token's principal, else the client's address — never the name an
    // MCP client states in clientInfo.
    app.all("/mcp", (c) => handler.handle(c.req.raw, { token: "", clientId: callerOf(c), scopes: [] }));
  }

  // The model's words on /v1 pass through the same redactor as tool results, runs, events, the store and traces.
  if (options.openai)
    app.route("/v1", createOpenAIRoutes({ ...options.openai, redactor: options.executor.redactor }));
  let ws: ReturnType<typeof mountWsApi> | undefined;
  let pendingApprovals: PendingApprovalsFeed | undefined;
  if (options.runs) {
    const {
      service,
      authenticate,
      maxBufferedBytes,
      authTimeoutMs,
      maxUnauthenticatedBytes,
      ...routeOptions
    } = options.runs;
    app.route("/api", createRunsRoutes(service, routeOptions));
    // A run of this server whose calls were decided elsewhere (`runs approve`, another serve) goes on here.
    pendingApprovals = new PendingApprovalsFeed({
      read: routeOptions.pendingApprovals ?? (() => listPendingApprovals(service.store)),
      onSettled: (runIds) => {
        for (const runId of runIds) void service.resumeIfDecided(runId).catch(() => {});
      },
    });
    ws = mountWsApi(app, {
      registry: options.registry,
      executor: options.executor,
      runs: service,
      ...(options.token ? { token: options.token } : {}),
      // A browser's session cookie authenticates its upgrade (the Origin guard in front already checked the page).
      ...(authenticate || options.token
        ? {
            authenticate: (request: Request) => {
              if (authenticate?.(request)) return true;
              const cookie = sessionCookieOf(request.headers.get("cookie") ?? undefined);
              return (
                options.token !== undefined &&
                cookie !== undefined &&
                verifySessionValue(options.token, cookie)
              );
            },
          }
        : {}),
      ...(maxBufferedBytes ? { maxBufferedBytes } : {}),
      ...(authTimeoutMs ? { authTimeoutMs } : {}),
      ...(maxUnauthenticatedBytes ? { maxUnauthenticatedBytes } : {}),
      attempts,
      gate,
      callerOf,
      // Every message is a request body: the same limit as HTTP's.
      maxMessageBytes: maxBodyBytes,
      pendingApprovals,
    });
  }

  // The address the start banner prints as the REST API: what it offers, read from the routes registered above.
  app.get("/api", (c) => c.json({ routes: listApiRoutes(app) }));

  // Last: the web UI answers what no route above took (an unknown API path still gets the JSON 404).
  if (webUi)
    app.on(["GET", "HEAD"], "*", (c) =>
      isWebUiRequest(c.req.method, c.req.path) ? webUi.handle(c) : c.notFound(),
    );

  return {
    app,
    mcp,
    ...(ws ? { injectWebSocket: ws.injectWebSocket } : {}),
    async close() {
      unsubscribe?.();
      pendingApprovals?.close();
      await ws?.close();
      await mcp?.close();
    },
  };
}
