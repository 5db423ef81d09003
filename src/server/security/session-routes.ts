import { Hono } from "hono";
import { apiError } from "../api-error.js";
import { bearerTokenOf, tokenMatches } from "../bearer-token-auth.js";
import {
  mintSessionValue,
  SESSION_TTL_SECONDS,
  sessionCookieHeader,
  sessionCookieOf,
  verifySessionValue,
} from "./session-cookie.js";

/**
 * `/api/session`: how a browser signs in without ever putting the token in a URL or in script-readable storage.
 * POST with the token (JSON body `{"token": …}` or a Bearer header) sets the HttpOnly, SameSite=Strict session
 * cookie; GET says whether the caller is signed in; DELETE ends the session. Without a server token there is nothing
 * to sign in to, and every call says so.
 */
export function createSessionRoutes(token: string | undefined): Hono {
  const routes = new Hono();
  const signedIn = (header: string | undefined, cookie: string | undefined): boolean => {
    if (!token) return true;
    const bearer = bearerTokenOf(header);
    if (bearer !== undefined) return tokenMatches(token, bearer);
    const session = sessionCookieOf(cookie);
    return session !== undefined && verifySessionValue(token, session);
  };

  routes.get("/", (c) =>
    c.json({
      authenticated: signedIn(c.req.header("authorization"), c.req.header("cookie")),
      tokenRequired: !!token,
    }),
  );

  routes.post("/", async (c) => {
    if (!token) return c.json({ authenticated: true, tokenRequired: false });
    let presented = bearerTokenOf(c.req.header("authorization"));
    if (presented === undefined) {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        return apiError(
          400,
          'Bad Request: send the token as JSON {"token": "<token>"} or as Authorization: Bearer <token>.',
          "invalid_request_error",
          "invalid_json",
        );
      }
      const field = (body as { token?: unknown } | null)?.token;
      if (typeof field !== "string" || field.length === 0) {
        return apiError(
          400,
          'Bad Request: the body must be {"token": "<token>"} with the token the server was started with.',
          "invalid_request_error",
          "missing_token",
        );
      }
      presented = field;
    }
    if (!tokenMatches(token, presented)) {
      return apiError(
        401,
        "Unauthorized: the token is wrong. Use the token the server was started with (--token).",
        "unauthorized",
        "unauthorized",
        { "www-authenticate": 'Bearer realm="toolbridge"' },
      );
    }
    c.header("set-cookie", sessionCookieHeader(mintSessionValue(token)));
    c.header("cache-control", "no-store");
    return c.json({ authenticated: true, tokenRequired: true, expiresInSeconds: SESSION_TTL_SECONDS });
  });

  routes.delete("/", (c) => {
    c.header("set-cookie", sessionCookieHeader(""));
    return c.json({ authenticated: false, tokenRequired: !!token });
  });

  return routes;
}
