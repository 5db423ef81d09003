import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mintSessionValue } from "../../src/server/security/session-cookie.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { ToolSettings } from "../../src/server/tools-api/tool-settings.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { SqliteToolSettingsStore } from "../../src/store/sqlite-tool-settings-store.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { send } from "./http.js";

const TOKEN = "correct-horse-battery-staple-42";
const UI_ORIGIN = "http://localhost:5173";
const dir = mkdtempSync(path.join(tmpdir(), "tb-server-security-"));

let store: SqliteStore;
let settingsStore: SqliteToolSettingsStore;
let open: RunningServer;
let guarded: RunningServer;
let calls = 0;

beforeAll(async () => {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: "touch",
      description: "counts its calls",
      inputSchema: { type: "object" },
      handler: () => String(++calls),
    }),
  );
  store = new SqliteStore(path.join(dir, "db.sqlite"), { synchronous: "normal" });
  settingsStore = new SqliteToolSettingsStore(store.db);
  const settings = await ToolSettings.load({ registry, store: settingsStore });
  const common = { registry, executor: new ToolExecutor(registry), port: 0, toolsApi: { settings } };
  open = await startServer({ ...common, maxBodyBytes: 16 * 1024 });
  guarded = await startServer({ ...common, token: TOKEN, corsOrigins: [UI_ORIGIN] });
});
afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const bearer = { authorization: `Bearer ${TOKEN}` };
const disable = '{"enabled": false}';

async function nothingChanged() {
  expect(await settingsStore.list()).toEqual([]);
  expect(calls).toBe(0);
}

describe("the server as an attacker sees it", () => {
  it("refuses a foreign Origin on /api with 403, in the API's error shape, before anything runs", async () => {
    for (const server of [open, guarded]) {
      const headers = { origin: "https://evil.example", ...bearer };
      const read = await send(`${server.url}/api/tools`, { headers });
      expect(read.status).toBe(403);
      expect(read.json.error).toMatchObject({ type: "permission_error", code: "forbidden" });
      expect(read.json.error.message).toContain('Origin "https://evil.example"');
      const write = await send(`${server.url}/api/tools/touch`, { method: "PATCH", headers, body: disable });
      expect(write.status).toBe(403);
      const run = await send(`${server.url}/api/tools/touch/call`, { headers, body: "{}" });
      expect(run.status).toBe(403);
      expect(read.headers["access-control-allow-origin"]).toBeUndefined();
    }
    await nothingChanged();
  });

  it("refuses a DNS-rebound Host with 403", async () => {
    const port = new URL(open.url).port;
    const rebound = await send(`${open.url}/api/tools/touch/call`, {
      headers: { host: `attacker.example:${port}`, origin: `http://attacker.example:${port}` },
      body: "{}",
    });
    expect(rebound.status).toBe(403);
    expect(rebound.json.error.message).toContain('Host "attacker.example');
    const noOrigin = await send(`${open.url}/api/tools`, { headers: { host: `attacker.example:${port}` } });
    expect(noOrigin.status).toBe(403);
    await nothingChanged();
  });

  it("answers a missing or wrong token with 401 and a Bearer challenge; the right one passes", async () => {
    const missing = await send(`${guarded.url}/api/tools`);
    expect(missing.status).toBe(401);
    expect(missing.headers["www-authenticate"]).toMatch(/^Bearer/);
    expect(missing.json.error).toMatchObject({ type: "authentication_error", code: "unauthorized" });
    const wrong = await send(`${guarded.url}/api/tools/touch`, {
      method: "PATCH",
      headers: { authorization: "Bearer guess" },
      body: disable,
    });
    expect(wrong.status).toBe(401);
    expect(wrong.json.error.message).toContain("the bearer token is wrong");
    const basic = await send(`${guarded.url}/api/tools`, { headers: { authorization: `Basic ${TOKEN}` } });
    expect(basic.status).toBe(401);
    await nothingChanged();
    expect((await send(`${guarded.url}/api/tools`, { headers: bearer })).status).toBe(200);
  });

  it("never takes the token from a URL: ?token= is 400 even when it is right", async () => {
    for (const query of [`token=${TOKEN}`, `access_token=${TOKEN}`]) {
      const refused = await send(`${guarded.url}/api/tools?${query}`);
      expect(refused.status).toBe(400);
      expect(refused.json.error.code).toBe("token_in_url");
      expect(refused.json.error.message).toContain("never accepted in a URL");
      expect(refused.body).not.toContain(TOKEN);
    }
    const withHeader = await send(`${guarded.url}/api/tools/touch/call?token=x`, {
      headers: bearer,
      body: "{}",
    });
    expect(withHeader.status).toBe(400);
    expect((await send(`${open.url}/api/tools?token=abc`)).status).toBe(400);
    await nothingChanged();
  });

  it("signs a browser in with an HttpOnly, SameSite=Strict cookie; a foreign origin cannot use it", async () => {
    const wrong = await send(`${guarded.url}/api/session`, { body: JSON.stringify({ token: "guess" }) });
    expect(wrong.status).toBe(401);
    expect(wrong.headers["set-cookie"]).toBeUndefined();
    const malformed = await send(`${guarded.url}/api/session`, { body: "{token" });
    expect(malformed.status).toBe(400);

    const signIn = await send(`${guarded.url}/api/session`, { body: JSON.stringify({ token: TOKEN }) });
    expect(signIn.status).toBe(200);
    const setCookie = String(signIn.headers["set-cookie"]);
    expect(setCookie).toMatch(/^toolbridge_session=v1\.\d+\.[\w-]+;/);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Strict");
    expect(setCookie).toContain("Path=/");
    expect(setCookie).not.toContain(TOKEN);
    const cookie = setCookie.split(";")[0]!;

    const port = new URL(guarded.url).port;
    const sameOrigin = await send(`${guarded.url}/api/tools`, {
      headers: { cookie, host: `localhost:${port}`, origin: `http://localhost:${port}` },
    });
    expect(sameOrigin.status).toBe(200);
    expect((await send(`${guarded.url}/api/session`, { headers: { cookie } })).json).toEqual({
      authenticated: true,
      tokenRequired: true,
    });

    const page = { host: `localhost:${port}`, origin: `http://localhost:${port}` };
    const ownPage = await send(`${guarded.url}/api/tools/touch/call`, {
      headers: { cookie, ...page },
      body: "{}",
    });
    expect(ownPage.status).toBe(200);
    expect(calls).toBe(1);
    calls = 0;
    // A change carrying only the cookie, without the Origin every browser sends, is not from a vetted page.
    const noOrigin = await send(`${guarded.url}/api/tools/touch`, {
      method: "PATCH",
      headers: { cookie },
      body: disable,
    });
    expect(noOrigin.status).toBe(403);

    const foreign = await send(`${guarded.url}/api/tools/touch`, {
      method: "PATCH",
      headers: { cookie, origin: "https://evil.example" },
      body: disable,
    });
    expect(foreign.status).toBe(403);

    const forged = await send(`${guarded.url}/api/tools`, {
      headers: { cookie: `toolbridge_session=${mintSessionValue("another-servers-token")}` },
    });
    expect(forged.status).toBe(401);
    const expired = await send(`${guarded.url}/api/tools`, {
      headers: { cookie: `toolbridge_session=${mintSessionValue(TOKEN, Date.now() - 2 * 86_400_000)}` },
    });
    expect(expired.status).toBe(401);
    expect(expired.json.error.message).toContain("session has expired");

    const signOut = await send(`${guarded.url}/api/session`, { method: "DELETE", headers: { cookie } });
    expect(String(signOut.headers["set-cookie"])).toContain("Max-Age=0");
    await nothingChanged();
  });

  it("limits bodies (413) and refuses malformed JSON (400) on /api, persisting nothing", async () => {
    const huge = JSON.stringify({ enabled: false, pad: "x".repeat(64 * 1024) });
    const declared = await send(`${open.url}/api/tools/touch`, { method: "PATCH", body: huge });
    expect(declared.status).toBe(413);
    expect(declared.json.error).toMatchObject({ type: "invalid_request_error", code: "payload_too_large" });
    const streamed = await send(`${open.url}/api/tools/touch`, {
      method: "PATCH",
      body: huge,
      chunked: true,
    });
    expect(streamed.status).toBe(413);
    const malformed = await send(`${open.url}/api/tools/touch`, { method: "PATCH", body: '{"enabled": fal' });
    expect(malformed.status).toBe(400);
    const badCall = await send(`${open.url}/api/tools/touch/call`, { body: "{]" });
    expect(badCall.status).toBe(400);
    await nothingChanged();
  });

  it("answers CORS preflights for the named origins only, with credentials only for them", async () => {
    const preflight = (origin: string) =>
      send(`${guarded.url}/api/tools/touch`, {
        method: "OPTIONS",
        headers: {
          origin,
          "access-control-request-method": "PATCH",
          "access-control-request-headers": "content-type",
        },
      });
    const named = await preflight(UI_ORIGIN);
    expect(named.status).toBe(204);
    expect(named.headers["access-control-allow-origin"]).toBe(UI_ORIGIN);
    expect(named.headers["access-control-allow-credentials"]).toBe("true");
    expect(named.headers["access-control-allow-methods"]).toContain("PATCH");

    const foreign = await preflight("https://evil.example");
    expect(foreign.status).toBe(403);
    expect(foreign.headers["access-control-allow-origin"]).toBeUndefined();
    expect(foreign.headers["access-control-allow-credentials"]).toBeUndefined();

    const fromUi = await send(`${guarded.url}/api/tools`, { headers: { origin: UI_ORIGIN, ...bearer } });
    expect(fromUi.status).toBe(200);
    expect(fromUi.headers["access-control-allow-origin"]).toBe(UI_ORIGIN);
    const unauthorizedFromUi = await send(`${guarded.url}/api/tools`, { headers: { origin: UI_ORIGIN } });
    expect(unauthorizedFromUi.status).toBe(401);
    expect(unauthorizedFromUi.headers["access-control-allow-origin"]).toBe(UI_ORIGIN);

    // The server without --cors-origin answers no preflight, even its own origin's.
    const port = new URL(open.url).port;
    const noCors = await send(`${open.url}/api/tools`, {
      method: "OPTIONS",
      headers: { origin: UI_ORIGIN, "access-control-request-method": "GET" },
    });
    expect(noCors.status).toBe(403);
    const own = await send(`${open.url}/api/tools`, { headers: { origin: `http://127.0.0.1:${port}` } });
    expect(own.status).toBe(200);
    expect(own.headers["access-control-allow-origin"]).toBeUndefined();
  });

  it("keeps the JSON-RPC error shape on /mcp", async () => {
    const refused = await send(`${guarded.url}/mcp`, {
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" }),
    });
    expect(refused.status).toBe(401);
    expect(refused.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 }, id: null });
  });
});
