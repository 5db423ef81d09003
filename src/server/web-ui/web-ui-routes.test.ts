import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { ToolExecutor } from "../../tools/tool-executor.js";
import { ToolRegistry } from "../../tools/tool-registry.js";
import { createServerApp } from "../create-server-app.js";
import { isWebUiRequest } from "./web-ui-routes.js";

const dir = mkdtempSync(path.join(tmpdir(), "tb-web-ui-"));
mkdirSync(path.join(dir, "assets"));
const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/app-1a2b.js"></script></head></html>';
const SCRIPT = `console.log(${JSON.stringify("x".repeat(4000))});`;
writeFileSync(path.join(dir, "index.html"), INDEX);
writeFileSync(path.join(dir, "assets", "app-1a2b.js"), SCRIPT);
writeFileSync(path.join(dir, "secret.env"), "TOKEN=1");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function app(options: { token?: string; webUi?: false } = {}) {
  const registry = new ToolRegistry();
  return createServerApp({
    registry,
    executor: new ToolExecutor(registry),
    mcp: false,
    webUi: options.webUi === false ? false : { dir },
    ...(options.token ? { token: options.token } : {}),
  }).app;
}

const get = (target: ReturnType<typeof app>, pathname: string, headers: Record<string, string> = {}) =>
  target.request(`http://127.0.0.1:8080${pathname}`, { headers: { host: "127.0.0.1:8080", ...headers } });

describe("the web UI at /", () => {
  it("serves the page with a same-origin-only CSP, and index.html for the UI's own routes", async () => {
    const server = app();
    for (const pathname of ["/", "/tools", "/runs/run_123", "/chat/conv_1"]) {
      const response = await get(server, pathname);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(INDEX);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("default-src 'self'");
      // Scripts only from this server (no inline ones); eval only for the schema form's Ajv.
      expect(csp).toContain("script-src 'self' 'unsafe-eval';");
      expect(csp).toContain("connect-src 'self';");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/https?:/);
      expect(response.headers.get("x-frame-options")).toBe("DENY");
    }
  });

  it("serves hashed assets gzipped and cached for good; unknown files and other extensions are 404", async () => {
    const server = app();
    const script = await get(server, "/assets/app-1a2b.js", { "accept-encoding": "gzip, br" });
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toContain("text/javascript");
    expect(script.headers.get("content-encoding")).toBe("gzip");
    expect(script.headers.get("cache-control")).toContain("immutable");
    expect(gunzipSync(Buffer.from(await script.arrayBuffer())).toString()).toBe(SCRIPT);
    expect((await get(server, "/assets/app-1a2b.js")).headers.get("content-encoding")).toBeNull();
    expect((await get(server, "/assets/missing.js")).status).toBe(404);
    expect((await get(server, "/secret.env")).status).toBe(404);
  });

  it("never answers an API path with the page: an unknown one stays a JSON 404", async () => {
    const server = app();
    for (const pathname of ["/api/nothing", "/v1/nothing", "/ws/x"]) {
      const response = await get(server, pathname);
      expect(response.status).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("route_not_found");
    }
    expect(isWebUiRequest("POST", "/")).toBe(false);
    expect(isWebUiRequest("GET", "/mcp")).toBe(false);
    expect(isWebUiRequest("GET", "/apix")).toBe(true);
  });

  it("with a token: the page loads without credentials (it signs in), the APIs and anything else still need them", async () => {
    const server = app({ token: "s3cret" });
    for (const pathname of [
      "/",
      "/tools",
      "/runs/run_1",
      "/chat/conv_1",
      "/assets/app-1a2b.js",
      "/index.html",
    ])
      expect((await get(server, pathname)).status, pathname).toBe(200);
    for (const pathname of ["/api/tools", "/metrics", "/tools/secret", "/assets/missing.js"])
      expect((await get(server, pathname)).status, pathname).toBe(401);
    expect((await get(server, "/metrics", { authorization: "Bearer s3cret" })).status).toBe(200);
    const post = await server.request("http://127.0.0.1:8080/", {
      method: "POST",
      headers: { host: "127.0.0.1:8080" },
    });
    expect(post.status).toBe(401);
  });

  it("keeps the Host check: a rebinding page under another name gets 403, not the UI", async () => {
    const response = await get(app(), "/", { host: "evil.example:8080" });
    expect(response.status).toBe(403);
  });

  it("can be left out: then / is a plain 404", async () => {
    expect((await get(app({ webUi: false }), "/")).status).toBe(404);
  });
});
