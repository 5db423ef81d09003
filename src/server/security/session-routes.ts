import { type Context, Hono } from "hono";
import { bearerTokenOf, tokenMatches, unauthorized } from "../bearer-token-auth.js";
import { badRequest } from "../http-error.js";
import {
  mintSessionValue,
  SESSION_TTL_SECONDS,
  sessionCookieHeader,
  sessionCookieOf,
  verifySessionValue,
} from "./session-cookie.js";
import { type SignInAttempts, tooManySignInFailures } from "./sign-in-limit.js";

/**
 * `/api/session`: how a browser signs in without ever putting the token in a URL or in script-readable storage.
 * POST with the token (JSON body `{"token": …}` or a Bearer header) sets the HttpOnly, SameSite=Strict session
 * cookie; GET says whether the caller is signed in; DELETE ends the session. Without a server token there is nothing
 * to sign in to, and every call says so.
 */
export function createSessionRoutes(
  token: string | undefined,
  options: { attempts?: SignInAttempts | undefined; secureCookie?: boolean | undefined } = {},
): Hono {
  const routes = new Hono();
  // GET answers whether given credentials are right, so a wrong one counts as a failed sign-in like a POST's.
  const signedIn = (c: Context): boolean => {
    if (!token) return true;
    const bearer = bearerTokenOf(c.req.header("authorization"));
    const session = sessionCookieOf(c.req.header("cookie"));
    const ok =
      bearer !== undefined
        ? tokenMatches(token, bearer)
        : session !== undefined && verifySessionValue(token, session);
    if (!ok && (bearer !== undefined || session !== undefined)) options.attempts?.failed(c);
    return ok;
  };

  routes.get("/", (c) => c.json({ authenticated: signedIn(c), tokenRequired: !!token }));

  routes.post("/", async (c) => {
    if (!token) return c.json({ authenticated: true, tokenRequired: false });
    let presented = bearerTokenOf(c.req.header("authorization"));
    if (presented === undefined) {
      let body: unknown;
      try {
        body = await c.req.json();
      } catch {
        throw badRequest(
          'Bad Request: send the token as JSON {"token": "<token>"} or as Authorization: Bearer <token>.',
          null,
          "invalid_json",
        );
      }
      const field = (body as { token?: unknown } | null)?.token;
      if (typeof field !== "string" || field.length === 0) {
        throw badRequest(
          'Bad Request: the body must be {"token": "<token>"} with the token the server was started with.',
          "token",
          "missing_token",
        );
      }
      presented = field;
    }
    // Checked again here, after the body was read: guesses sent all at once passed the route's guard together.
    const wait = options.attempts?.retryAfter(c) ?? 0;
    if (wait > 0) throw tooManySignInFailures(wait);
    if (!tokenMatches(token, presented)) {
      options.attempts?.failed(c);
      throw unauthorized(
        "Unauthorized: the token is wrong. Use the token the server was started with (--token).",
      );
    }
    c.header(
      "set-cookie",
      sessionCookieHeader(mintSessionValue(token), { secure: options.secureCookie === true }),
    );
    c.header("cache-control", "no-store");
    return c.json({ authenticated: true, tokenRequired: true, expiresInSeconds: SESSION_TTL_SECONDS });
  });

  routes.delete("/", (c) => {
    c.header("set-cookie", sessionCookieHeader("", { secure: options.secureCookie === true }));
    return c.json({ authenticated: false, tokenRequired: !!token });
  });

  return routes;
}
