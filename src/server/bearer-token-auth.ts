import { createHash, timingSafeEqual } from "node:crypto";
import type { MiddlewareHandler } from "hono";
import { HttpError } from "./http-error.js";
import { sessionCookieOf, verifySessionValue } from "./security/session-cookie.js";
import { type SignInAttempts, tooManySignInFailures } from "./security/sign-in-limit.js";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** Constant-time check of a presented token: compared by digest so its length and content do not leak through timing. */
export function tokenMatches(expected: string, presented: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** The token of an `Authorization: Bearer <token>` header, or undefined for anything else. */
export function bearerTokenOf(header: string | undefined): string | undefined {
  return /^Bearer[ ]+(\S+)\s*$/i.exec(header ?? "")?.[1];
}

/** Paths where Anthropic's clients send the token as `x-api-key` (its SDKs' `apiKey`, `ANTHROPIC_API_KEY`). */
const API_KEY_PATHS = ["/v1/messages"];

function takesApiKey(path: string): boolean {
  return API_KEY_PATHS.some((p) => path === p || path.startsWith(`${p}/`));
}

/**
 * Require `Authorization: Bearer <token>` (or `x-api-key: <token>` on /v1/messages, as Anthropic's clients send it)
 * or, for browsers, the session cookie `POST /api/session` sets. Anything else
 * — no credentials, another scheme, a wrong token, an expired or forged cookie — is 401 with a `WWW-Authenticate`
 * challenge. A cookie is accepted only here, behind the Host/Origin guard: a request carrying it got this far only
 * from this server's own pages or a configured origin (and SameSite=Strict keeps other sites from sending it).
 */
export function bearerTokenAuth(
  token: string,
  options: {
    skipPaths?: readonly string[];
    /** Requests that need no credentials at all (the web UI's public files). */
    isPublic?: (method: string, path: string) => boolean;
    /** Told of every wrong token and invalid session cookie (the sign-in failure limit). */
    attempts?: SignInAttempts | undefined;
  } = {},
): MiddlewareHandler {
  if (token.length === 0) throw new RangeError("The bearer token must not be empty.");
  const skip = new Set(options.skipPaths ?? []);
  return async (c, next) => {
    if (skip.has(c.req.path) || options.isPublic?.(c.req.method, c.req.path)) return next();
    // The app refuses a limited client up front; checked again right before comparing, whatever ran in between.
    const wait = options.attempts?.retryAfter(c) ?? 0;
    if (wait > 0) throw tooManySignInFailures(wait);
    const header = c.req.header("authorization");
    const apiKey = takesApiKey(c.req.path) ? c.req.header("x-api-key") : undefined;
    if (header || apiKey) {
      // Either credential may carry the token; a request with wrong ones is one failed attempt.
      const presented = [header ? bearerTokenOf(header) : undefined, apiKey];
      if (presented.some((p) => p !== undefined && tokenMatches(token, p))) return next();
    } else {
      const session = sessionCookieOf(c.req.header("cookie"));
      if (session !== undefined && verifySessionValue(token, session)) {
        // Browsers send Origin with every request that can change something; a cookie on such a request without
        // one did not come from a page the Origin check could vet (non-browser clients use the Bearer header).
        if (!SAFE_METHODS.has(c.req.method) && c.req.header("origin") === undefined) {
          throw new HttpError(
            403,
            "Forbidden: a change signed in by the session cookie must come from a page (with an Origin header). Other clients send Authorization: Bearer <token>.",
            { code: "forbidden" },
          );
        }
        return next();
      }
      if (session !== undefined) {
        options.attempts?.failed(c);
        throw unauthorized(
          "Unauthorized: the session has expired or is not valid for this server. Sign in again (POST /api/session with the token).",
        );
      }
    }
    // A request without credentials guesses nothing; a wrong header does.
    if (header || apiKey) options.attempts?.failed(c);
    throw unauthorized(
      header || apiKey
        ? `Unauthorized: the ${header ? "bearer token" : "x-api-key"} is wrong. Use the token the server was started with (--token).`
        : takesApiKey(c.req.path)
          ? "Unauthorized: send x-api-key: <token> or Authorization: Bearer <token> (the token the server was started with)."
          : "Unauthorized: send Authorization: Bearer <token> (the token the server was started with).",
    );
  };
}

/** 401 with the challenge a client reads to know it needs a token. */
export function unauthorized(message: string): HttpError {
  return new HttpError(401, message, {
    code: "unauthorized",
    headers: { "www-authenticate": 'Bearer realm="toolbridge"' },
  });
}
