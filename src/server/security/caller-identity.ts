import { createHash } from "node:crypto";
import type { Context } from "hono";
import { signInClientKey } from "./sign-in-failure-limiter.js";
import { remoteAddressOf } from "./sign-in-limit.js";

/** The principal a token authenticates: its hash, so fair shares and approval state never hold the secret. */
export function tokenPrincipal(token: string): string {
  return `token:${createHash("sha256").update(token).digest("base64url").slice(0, 16)}`;
}

/**
 * Who really makes a request, for fair shares of the executor and the calculator, cooldowns, rate limits and the
 * caller bound into MCP approval state: the authenticated principal where there is one, else the address the
 * connection comes from (an IPv6 client by its /64, as for the sign-in limit). Never a name the client states — a
 * client could change it at every request and get a fresh share each time — and not the connection either: one
 * address opening many connections is still one caller.
 */
export function callerIdentity(c: Context, principal: string | undefined): string {
  return principal ?? `address:${signInClientKey(remoteAddressOf(c))}`;
}
