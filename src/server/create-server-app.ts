import { createHash } from "node:crypto";
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
import type { ModelCatalog } from "./model-catalog.js";
import { toOpenAIErrorShape } from "./openai/openai-api-error.js";
import { createOpenAIRoutes } from "./openai/openai-routes.js";

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
  /** The named models of the OpenAI-compatible API at /v1 (`GET /v1/models`, `POST /v1/chat/completions`); off when absent. */
  openai?: { models: ModelCatalog };
}

export interface ServerApp {
  /** The Hono app; later features add their routes to it. */
  app: Hono;
  /** The MCP endpoint's session handler, when /mcp is on. */
  mcp: McpHttpHandler | undefined;
  /** End MCP sessions and anything else the routes hold. The HTTP listener is the caller's (see startServer). */
  close(): Promise<void>;
}

/**
 * The HTTP app of `toolbridge serve`: security middleware for every route (Host/Origin check → 403, bearer token →
 * 401, body limit → 413, in that order), `/healthz`, and the MCP Streamable HTTP endpoint at `/mcp`.
 */
export function createServerApp(options: ServerAppOptions): ServerApp {
  const app = new Hono();
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  // In front of the guards: their refusals (403/401/413) reach OpenAI clients in OpenAI's error shape.
  if (options.openai)
    app.use("/v1/*", async (c, next) => {
      await next();
      c.res = await toOpenAIErrorShape(c.res);
    });

  app.use(
    "*",
    hostOriginGuard({
      loopbackOnly: isLoopbackHost(options.bindHost ?? "127.0.0.1"),
      ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}),
      ...(options.allowedOrigins ? { allowedOrigins: options.allowedOrigins } : {}),
    }),
  );
  if (options.token) app.use("*", bearerTokenAuth(options.token, { skipPaths: ["/healthz"] }));
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

  if (options.openai) app.route("/v1", createOpenAIRoutes(options.openai));

  return {
    app,
    mcp,
    async close() {
      unsubscribe?.();
      await mcp?.close();
    },
  };
}
