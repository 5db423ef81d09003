import type { MiddlewareHandler } from "hono";

const ALLOWED_METHODS = "GET, POST, PATCH, DELETE, OPTIONS";
const ALLOWED_HEADERS = "authorization, content-type, last-event-id, mcp-session-id, mcp-protocol-version";
const EXPOSED_HEADERS = "mcp-session-id, www-authenticate";

/** Lower-cased, without a trailing slash: how origins are compared. */
export function normalizeOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/$/, "");
}

/**
 * CORS for the named origins only (`--cors-origin`): their preflights are answered (204) and their responses carry
 * `Access-Control-Allow-Origin: <origin>` with credentials allowed. Every other origin gets no CORS header at all, so
 * a browser keeps such pages from reading anything — and the Host/Origin guard in front has already refused them.
 */
export function corsForOrigins(origins: readonly string[]): MiddlewareHandler {
  const named = new Set(origins.map(normalizeOrigin));
  return async (c, next) => {
    const origin = c.req.header("origin");
    if (origin === undefined || !named.has(normalizeOrigin(origin))) return next();
    const headers: Record<string, string> = {
      "access-control-allow-origin": origin,
      "access-control-allow-credentials": "true",
      vary: "Origin",
    };
    if (c.req.method === "OPTIONS" && c.req.header("access-control-request-method")) {
      return new Response(null, {
        status: 204,
        headers: {
          ...headers,
          "access-control-allow-methods": ALLOWED_METHODS,
          "access-control-allow-headers": ALLOWED_HEADERS,
          "access-control-max-age": "600",
        },
      });
    }
    await next();
    headers["access-control-expose-headers"] = EXPOSED_HEADERS;
    try {
      for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
    } catch {
      // A response built elsewhere with immutable headers: copy it, then add ours.
      c.res = new Response(c.res.body, c.res);
      for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
    }
  };
}
