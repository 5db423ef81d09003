/** One surface `toolbridge serve` offers: printed at start (with the real address) and in `serve --help`. */
export interface ServedRoute {
  /** Path under the server's base URL. */
  path: string;
  /** `ws` for WebSocket endpoints (printed as ws://…). Default http. */
  scheme?: "http" | "ws";
  /** What a person reaches there, in a few words. */
  label: string;
}

/**
 * Every surface of the server, in the order printed. A new surface (the WebSocket API, /v1, the web UI) is one more
 * entry here, so the start banner and `--help` never disagree with what is served.
 */
export const SERVED_ROUTES: readonly ServedRoute[] = [
  { path: "/", label: "Web UI (chat, approvals, tools, MCP servers, runs)" },
  { path: "/api", label: "REST API (runs, approvals, conversations, tools, MCP servers)" },
  { path: "/api/runs/{id}/events", label: "a run's events (Server-Sent Events)" },
  { path: "/ws", scheme: "ws", label: "WebSocket API (runs, approvals, tools, live events)" },
  { path: "/v1", label: "OpenAI/Anthropic API (chat/completions, responses, messages)" },
  { path: "/mcp", label: "MCP endpoint (Streamable HTTP)" },
];

/** `http://127.0.0.1:8080` + a route → its URL (ws:// for WebSocket routes). */
export function routeUrl(baseUrl: string, route: ServedRoute): string {
  const url = `${baseUrl}${route.path}`;
  return route.scheme === "ws" ? url.replace(/^http/, "ws") : url;
}

/** Aligned lines "  label  url" for the start banner (`baseUrl` real) or for --help (`baseUrl` a placeholder). */
export function describeServedRoutes(
  baseUrl: string,
  routes: readonly ServedRoute[] = SERVED_ROUTES,
): string {
  const width = Math.max(...routes.map((route) => route.label.length));
  return routes.map((route) => `  ${route.label.padEnd(width)}  ${routeUrl(baseUrl, route)}`).join("\n");
}
