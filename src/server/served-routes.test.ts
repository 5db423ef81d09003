import { describe, expect, it } from "vitest";
import { describeServedRoutes, routeUrl, SERVED_ROUTES } from "./served-routes.js";

describe("served routes", () => {
  it("prints one aligned line per surface, WebSocket routes as ws://", () => {
    const lines = describeServedRoutes("http://127.0.0.1:9000", [
      { path: "/api", label: "REST API" },
      { path: "/ws", scheme: "ws", label: "WebSocket API" },
    ]).split("\n");
    expect(lines).toEqual([
      "  REST API       http://127.0.0.1:9000/api",
      "  WebSocket API  ws://127.0.0.1:9000/ws",
    ]);
    expect(routeUrl("https://h", { path: "/ws", scheme: "ws", label: "" })).toBe("wss://h/ws");
  });

  it("names the three /v1 APIs, so the start banner and --help show where each client points", () => {
    const v1 = SERVED_ROUTES.find((route) => route.path === "/v1")!;
    for (const api of ["chat/completions", "responses", "messages"]) expect(v1.label).toContain(api);
  });

  it("lists the REST API and the MCP endpoint", () => {
    expect(SERVED_ROUTES.map((route) => route.path)).toEqual(expect.arrayContaining(["/api", "/mcp"]));
  });
});
