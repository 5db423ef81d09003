import type { IncomingMessage } from "node:http";
import type { Context, MiddlewareHandler } from "hono";
import { HttpError } from "../http-error.js";
import { type SignInFailureLimiter, signInClientKey } from "./sign-in-failure-limiter.js";

/** The remote address of the connection a request came on (Node's server and WebSocket upgrades put it in env). */
export function remoteAddressOf(c: Context): string | undefined {
  const env = c.env as { incoming?: IncomingMessage; server?: { incoming?: IncomingMessage } } | undefined;
  return (env?.server?.incoming ?? env?.incoming)?.socket?.remoteAddress;
}

/** What every token check (Bearer, session cookie, `/api/session`, the WebSocket's first message) reports to. */
export interface SignInAttempts {
  /** Seconds the request's client must wait before its credentials are looked at again; 0 when it may try now. */
  retryAfter(c: Context): number;
  /** A failed check by the request's client. */
  failed(c: Context): void;
}

export function signInAttempts(
  limiter: SignInFailureLimiter,
  clientOf: (c: Context) => string | undefined = remoteAddressOf,
): SignInAttempts {
  return {
    retryAfter: (c) => limiter.retryAfterSeconds(signInClientKey(clientOf(c))),
    failed: (c) => limiter.recordFailure(signInClientKey(clientOf(c))),
  };
}

/** The refusal of a client that failed too often: 429 with Retry-After (thrown; written in the shape of the route). */
export function tooManySignInFailures(retryAfterSeconds: number): HttpError {
  return new HttpError(
    429,
    `Too Many Requests: too many wrong tokens from this address; no credentials are checked for ${retryAfterSeconds} s (see Retry-After).`,
    { code: "too_many_sign_in_failures", headers: { "retry-after": String(retryAfterSeconds) } },
  );
}

/**
 * Refuse a client that failed too many token checks, on every route but `skipPaths`, before any credential it sends
 * is compared: while it waits, even the right token gets 429 from that address (others are not affected).
 */
export function refuseLimitedClients(
  attempts: SignInAttempts,
  options: { skipPaths?: readonly string[] } = {},
): MiddlewareHandler {
  const skip = new Set(options.skipPaths ?? []);
  return async (c, next) => {
    if (skip.has(c.req.path)) return next();
    const wait = attempts.retryAfter(c);
    if (wait > 0) throw tooManySignInFailures(wait);
    return next();
  };
}
