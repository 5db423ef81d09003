import type { MiddlewareHandler } from "hono";
import { HttpError } from "./http-error.js";
import { hostnameOfHostHeader, isLoopbackHost } from "./is-loopback-host.js";

export interface HostOriginGuardOptions {
  /**
   * True when the server listens on loopback only: then the Host header must name this machine (localhost, 127.x,
   * [::1]), which is what defeats DNS rebinding — a page on evil.example resolved to 127.0.0.1 still sends
   * `Host: evil.example`.
   */
  loopbackOnly: boolean;
  /** Further host names (without port) accepted in the Host header, e.g. a reverse proxy's public name. */
  allowedHosts?: readonly string[];
  /** Further origins (`scheme://host[:port]`) whose pages may call the server from a browser. */
  allowedOrigins?: readonly string[];
  /**
   * The scheme pages reach this server by: `http` (the default: it speaks plain HTTP), or `https` behind a TLS proxy.
   * A page of the same host under the other scheme is another origin.
   */
  scheme?: "http" | "https";
}

/**
 * A Host header as RFC 9110 allows it: a bracketed IPv6 literal or a name (letters, digits, `-._~`, percent-escapes),
 * then an optional port. Userinfo (`127.0.0.1:1@evil.example`) and anything else is refused before it is read as a
 * host name: HTTP requests with such a Host never reach the app (Node answers 400), and a WebSocket upgrade must not
 * get further than they do.
 */
const WELL_FORMED_HOST = /^(?:\[[0-9a-f:.]+\]|[a-z0-9\-._~%]+)(?::\d{1,5})?$/i;

function forbidden(message: string): HttpError {
  return new HttpError(403, message, { code: "forbidden" });
}

/**
 * DNS-rebinding and cross-site protection for the HTTP app: a request whose Host is not this machine (when bound to
 * loopback) or whose Origin is a foreign site gets 403 before any route sees it. Requests without an Origin (curl,
 * SDK clients, other servers) are not browser cross-site requests and pass the Origin check.
 */
export function hostOriginGuard(options: HostOriginGuardOptions): MiddlewareHandler {
  const extraHosts = new Set((options.allowedHosts ?? []).map((host) => host.toLowerCase()));
  const extraOrigins = new Set(
    (options.allowedOrigins ?? []).map((origin) => origin.toLowerCase().replace(/\/$/, "")),
  );

  const hostAllowed = (hostname: string): boolean => {
    if (extraHosts.has(hostname)) return true;
    if (options.loopbackOnly) return isLoopbackHost(hostname);
    return extraHosts.size === 0;
  };

  const scheme = `${options.scheme ?? "http"}:`;
  return async (c, next) => {
    const hostHeader = c.req.header("host") ?? "";
    if (hostHeader !== "" && !WELL_FORMED_HOST.test(hostHeader.trim())) {
      throw new HttpError(
        400,
        `Bad Request: the Host header "${hostHeader.slice(0, 200)}" is not a host name with an optional port.`,
        { code: "invalid_host" },
      );
    }
    const hostname = hostnameOfHostHeader(hostHeader);
    if (!hostname || !hostAllowed(hostname)) {
      throw forbidden(
        `Forbidden: Host "${hostHeader}" is not allowed. Reach this server as localhost/127.0.0.1, or allow the name: serve --allowed-host <name> (config: server.allowedHosts; library: allowedHosts).`,
      );
    }
    const origin = c.req.header("origin");
    if (origin !== undefined) {
      const normalized = origin.toLowerCase().replace(/\/$/, "");
      let sameOrigin = false;
      try {
        const url = new URL(normalized);
        // Same origin means the same scheme too: an https page of this host is not this http server's page.
        sameOrigin = url.protocol === scheme && url.host === hostHeader.toLowerCase();
      } catch {
        sameOrigin = false;
      }
      if (!sameOrigin && !extraOrigins.has(normalized)) {
        throw forbidden(
          `Forbidden: Origin "${origin}" may not call this server. Allow it with serve --allowed-origin ${origin} (config: server.allowedOrigins; library: allowedOrigins).`,
        );
      }
    }
    await next();
  };
}
