import { createHmac, timingSafeEqual } from "node:crypto";

/** The browser's session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site sends it), Path=/. */
export const SESSION_COOKIE_NAME = "toolbridge_session";

/** How long a browser session lasts before the token must be given again. */
export const SESSION_TTL_SECONDS = 12 * 60 * 60;

function signature(token: string, expiresAtMs: number): string {
  return createHmac("sha256", token).update(`toolbridge-session:v1:${expiresAtMs}`).digest("base64url");
}

/**
 * A session value: its expiry and an HMAC of it keyed by the server's token. Nothing is kept on the server, so a
 * session survives a restart of serve and ends when the token changes (or when it expires); the value never contains
 * the token itself.
 */
export function mintSessionValue(
  token: string,
  nowMs = Date.now(),
  ttlSeconds = SESSION_TTL_SECONDS,
): string {
  const expiresAtMs = nowMs + ttlSeconds * 1000;
  return `v1.${expiresAtMs}.${signature(token, expiresAtMs)}`;
}

/** True when the value was minted with this token and has not expired. */
export function verifySessionValue(token: string, value: string, nowMs = Date.now()): boolean {
  const match = /^v1\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(value);
  if (!match) return false;
  const expiresAtMs = Number(match[1]);
  if (!Number.isSafeInteger(expiresAtMs) || expiresAtMs <= nowMs) return false;
  const expected = Buffer.from(signature(token, expiresAtMs));
  const given = Buffer.from(match[2]!);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * The Set-Cookie header value for a session (or, with `value` empty, one that ends it). `secure` adds `Secure`, for a
 * server reached over HTTPS (behind a TLS proxy): the browser then never sends the cookie over plain HTTP.
 */
export function sessionCookieHeader(
  value: string,
  options: { maxAgeSeconds?: number; secure?: boolean } = {},
): string {
  const maxAge = value ? (options.maxAgeSeconds ?? SESSION_TTL_SECONDS) : 0;
  return `${SESSION_COOKIE_NAME}=${value}; Path=/; HttpOnly;${options.secure ? " Secure;" : ""} SameSite=Strict; Max-Age=${maxAge}`;
}

/** The session cookie's value in a Cookie header, if any. */
export function sessionCookieOf(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === SESSION_COOKIE_NAME) return part.slice(eq + 1).trim();
  }
  return undefined;
}
