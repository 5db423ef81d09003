/**
 * Issue 29, item 5: the Host and Origin checks hold on all four surfaces — /api, /v1, /mcp and the /ws upgrade — as an
 * attacker sends them, over raw HTTP so every header is exactly what was written. On main before this change, the
 * /ws upgrade accepted `Host: 127.0.0.1:1@evil.example` (HTTP routes answer 400) and `Origin: https://127.0.0.1:<port>`
 * passed everywhere (the scheme was not compared).
 */
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReplayModel } from "../../src/models/replay-model.js";
import { ModelCatalog } from "../../src/server/model-catalog.js";
import { RunService } from "../../src/server/runs-api/run-service.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { ToolSettings } from "../../src/server/tools-api/tool-settings.js";
import { InMemoryRunEventLog } from "../../src/store/in-memory-run-event-log.js";
import { InMemoryStore } from "../../src/store/in-memory-store.js";
import { InMemoryToolSettingsStore } from "../../src/store/in-memory-tool-settings-store.js";
import { createCalculatorTool } from "../../src/tools/builtin/calculator.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";

const servers: RunningServer[] = [];
const services: RunService[] = [];

async function serve(secureCookie: boolean): Promise<RunningServer> {
  const registry = new ToolRegistry();
  registry.register(createCalculatorTool({ size: 1 }));
  const executor = new ToolExecutor(registry);
  const store = new InMemoryStore();
  const service = new RunService({
    models: {
      names: () => ["replay"],
      defaultName: "replay",
      get: async () => createReplayModel([{ text: "Hi." }]),
    },
    store,
    events: new InMemoryRunEventLog(),
    executor,
  });
  services.push(service);
  const server = await startServer({
    registry,
    executor,
    port: 0,
    secureCookie,
    toolsApi: { settings: await ToolSettings.load({ registry, store: new InMemoryToolSettingsStore() }) },
    openai: {
      models: new ModelCatalog({ replay: { create: async () => createReplayModel([{ text: "Hi." }]) } }),
    },
    runs: { service },
  });
  servers.push(server);
  return server;
}

let plain: RunningServer;
let behindTls: RunningServer;
beforeAll(async () => {
  plain = await serve(false);
  behindTls = await serve(true);
});
afterAll(async () => {
  for (const server of servers) await server.close();
  for (const service of services) await service.close();
});

/** One raw request; a WebSocket upgrade that is accepted answers 101. */
function raw(url: string, headers: Record<string, string>, body?: string): Promise<number> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: body === undefined ? "GET" : "POST",
        headers: {
          ...(body === undefined
            ? {}
            : { "content-type": "application/json", accept: "application/json, text/event-stream" }),
          ...headers,
        },
      },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("upgrade", (res, socket) => {
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end(body);
  });
}

const upgrade = {
  connection: "Upgrade",
  upgrade: "websocket",
  "sec-websocket-version": "13",
  "sec-websocket-key": Buffer.from("0123456789abcdef").toString("base64"),
};
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "probe", version: "1" } },
});

/** Each surface as a request with the given extra headers, answering its status. */
const SURFACES: Array<[string, (server: RunningServer, headers: Record<string, string>) => Promise<number>]> =
  [
    ["/api", (s, h) => raw(`${s.url}/api/tools`, h)],
    ["/v1", (s, h) => raw(`${s.url}/v1/models`, h)],
    ["/mcp", (s, h) => raw(`${s.url}/mcp`, h, initialize)],
    ["/ws", (s, h) => raw(`${s.url}/ws`, { ...upgrade, ...h })],
  ];

describe.each(SURFACES)("%s", (_name, request) => {
  it("serves its own origin (the control)", async () => {
    expect([200, 101]).toContain(await request(plain, { origin: plain.url }));
  });

  it("refuses a Host with userinfo (127.0.0.1:1@evil.example) with 400", async () => {
    expect(await request(plain, { host: "127.0.0.1:1@evil.example" })).toBe(400);
  });

  it("refuses an Origin of this host under the other scheme with 403", async () => {
    const port = new URL(plain.url).port;
    expect(await request(plain, { origin: `https://127.0.0.1:${port}` })).toBe(403);
    // Behind a TLS proxy (--secure-cookie) the pages are https: there the http origin is the foreign one.
    const tlsPort = new URL(behindTls.url).port;
    expect([200, 101]).toContain(await request(behindTls, { origin: `https://127.0.0.1:${tlsPort}` }));
    expect(await request(behindTls, { origin: `http://127.0.0.1:${tlsPort}` })).toBe(403);
  });
});
