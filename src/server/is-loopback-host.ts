import { isIP } from "node:net";

/** Host names that always mean this machine. */
export const LOOPBACK_HOSTNAMES: readonly string[] = ["localhost", "127.0.0.1", "[::1]", "::1"];

/** True for addresses only this machine can reach: localhost, 127.0.0.0/8, ::1. A wildcard (0.0.0.0, ::) is not. */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  const lower = bare.toLowerCase();
  if (lower === "localhost" || lower.endsWith(".localhost")) return true;
  if (isIP(lower) === 4) return lower.startsWith("127.");
  if (isIP(lower) === 6)
    return lower === "::1" || lower === "0:0:0:0:0:0:0:1" || lower.startsWith("::ffff:127.");
  return false;
}

/** The host name of a Host header value ("localhost:3000" → "localhost", "[::1]:80" → "[::1]"), lower-cased. */
export function hostnameOfHostHeader(value: string): string {
  const trimmed = value.trim().toLowerCase();
  if (trimmed.startsWith("[")) {
    const end = trimmed.indexOf("]");
    return end === -1 ? trimmed : trimmed.slice(0, end + 1);
  }
  const colon = trimmed.indexOf(":");
  return colon === -1 ? trimmed : trimmed.slice(0, colon);
}
