import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/**
 * Require `Authorization: Bearer <token>`. Anything else — no header, another scheme, a wrong token — is 401 with a
 * `WWW-Authenticate` challenge. Tokens are compared by digest in constant time so their length and content do not
 * leak through timing.
 */
export function bearerTokenAuth(
  token: string,
  options: { skipPaths?: readonly string[] } = {},
): MiddlewareHandler {
  if (token.length === 0) throw new RangeError("The bearer token must not be empty.");
  const expected = digest(token);
  const skip = new Set(options.skipPaths ?? []);
  return async (c, next) => {
    if (skip.has(c.req.path)) return next();
    const header = c.req.header("authorization") ?? "";
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
    if (!match || !timingSafeEqual(digest(match[1]!), expected)) {
      const message = header
        ? "Unauthorized: the bearer token is wrong. Use the token the server was started with (--token)."
        : "Unauthorized: send Authorization: Bearer <token> (the token the server was started with).";
      return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code: -32001, message }, id: null }), {
        status: 401,
        headers: { "content-type": "application/json", "www-authenticate": 'Bearer realm="toolbridge"' },
      });
    }
    await next();
  };
}
