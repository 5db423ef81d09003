/**
 * Issue 29, item 3: calculator fairness is keyed by who really calls — the client's address here (no token), never a
 * name the client states and not the connection — and the pool's queue limit bounds every wait. The probe of the
 * issue, on every surface that runs tools (a row each): one address floods the calculator with heavy expressions over
 * several connections (MCP clients under a new name each), and another address's `2+2` must answer within 2 s; every
 * flooded call ends within the queue limit plus one evaluation, ran or refused "busy, try again".
 *
 * Loopback has one address per client here: on Linux 127.0.0.0/8 is all loopback, so the flooder binds its sockets to
 * 127.0.0.1 and the prober to 127.0.0.2 (`localAddress`), as two machines would be. On main before this change every
 * row failed: the Tools API and /ws were one caller for everyone ("http:local", "anonymous") and MCP took the stated
 * name, so the probe waited behind the flood (the report: 98.8 s, 47 s, 38 s).
 */
import { request as httpRequest } from "node:http";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReplayModel } from "../../src/models/replay-model.js";
import { RunService } from "../../src/server/runs-api/run-service.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { ToolSettings } from "../../src/server/tools-api/tool-settings.js";
import { InMemoryRunEventLog } from "../../src/store/in-memory-run-event-log.js";
import { InMemoryStore } from "../../src/store/in-memory-store.js";
import { InMemoryToolSettingsStore } from "../../src/store/in-memory-tool-settings-store.js";
import { createCalculatorTool } from "../../src/tools/builtin/calculator.js";
import { MathWorkerPool } from "../../src/tools/builtin/math-worker-pool.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { fetchFromAddress } from "../helpers/fetch-from-address.js";
import { waitFor } from "../helpers/wait-for.js";
import { TestSocket } from "../server/runs/helpers.js";

const FLOODER = "127.0.0.1";
const PROBER = "127.0.0.2";
const HEAVY = "det(random([700, 700]))";
const FLOOD_SIZE = 24;
const QUEUE_WAIT_MS = 4000;
const EVALUATION_MS = 2000;

/** A calculator call on one surface from one address: its result text, and whether it is an error. */
type Caller = (expression: string) => Promise<{ text: string; isError: boolean }>;
interface Surface {
  name: string;
  /** `connections` callers from `address` (each its own connection; MCP clients under a name of their own). */
  callers(address: string, connections: number): Promise<Caller[]>;
}

const pool = new MathWorkerPool({
  size: 2,
  timeoutMs: EVALUATION_MS,
  maxMemoryMb: 128,
  maxQueueWaitMs: QUEUE_WAIT_MS,
});
let server: RunningServer;
let service: RunService;
const closers: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  await pool.warmUp();
  const registry = new ToolRegistry();
  registry.register(createCalculatorTool({ pool }));
  const executor = new ToolExecutor(registry);
  service = new RunService({
    models: {
      names: () => ["replay"],
      defaultName: "replay",
      get: async () => createReplayModel([{ text: "Hi." }]),
    },
    store: new InMemoryStore(),
    events: new InMemoryRunEventLog(),
    executor,
  });
  server = await startServer({
    registry,
    executor,
    port: 0,
    toolsApi: { settings: await ToolSettings.load({ registry, store: new InMemoryToolSettingsStore() }) },
    runs: { service },
  });
}, 90_000);

afterAll(async () => {
  for (const close of closers.splice(0)) await close();
  await server?.close();
  await service?.close();
  pool.close();
});

const textOf = (content: unknown) =>
  ((content as Array<{ text?: string }>) ?? []).map((block) => block.text ?? "").join("\n");

/** POST /api/tools/calculator/call over a fresh connection from `address`. */
function restCall(address: string): Caller {
  return (expression) =>
    new Promise((resolve, reject) => {
      const url = new URL(`${server.url}/api/tools/calculator/call`);
      const body = JSON.stringify({ arguments: { expression } });
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: "POST",
          localAddress: address,
          agent: false,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
        },
        (res) => {
          let text = "";
          res.on("data", (chunk) => {
            text += chunk;
          });
          res.on("end", () => {
            const json = JSON.parse(text) as { content?: unknown; isError?: boolean };
            resolve({ text: textOf(json.content), isError: json.isError === true });
          });
        },
      );
      req.on("error", reject);
      req.end(body);
    });
}

let wsIds = 0;
async function mcpCaller(era: "2025" | "2026", address: string, name: string): Promise<Caller> {
  const url = new URL(`${server.url}/mcp`);
  const fetch = fetchFromAddress(address);
  const client =
    era === "2025"
      ? new ClientV1({ name, version: "1" })
      : new ClientV2({ name, version: "1" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
  await (client as ClientV1).connect(
    era === "2025" ? new HttpV1(url, { fetch }) : (new HttpV2(url, { fetch }) as never),
  );
  closers.push(() => client.close());
  return async (expression) => {
    const result = (await client.callTool({ name: "calculator", arguments: { expression } }, undefined, {
      timeout: 120_000,
    })) as { content: unknown; isError?: boolean };
    return { text: textOf(result.content), isError: result.isError === true };
  };
}

const SURFACES: Surface[] = [
  {
    name: "Tools API (POST /api/tools/calculator/call)",
    callers: async (address, connections) => Array.from({ length: connections }, () => restCall(address)),
  },
  {
    name: "WebSocket API (/ws tools/call)",
    async callers(address, connections) {
      return Promise.all(
        Array.from({ length: connections }, async () => {
          const socket = await TestSocket.open(
            `${server.url.replace("http", "ws")}/ws`,
            {},
            { localAddress: address },
          );
          closers.push(() => socket.close());
          return async (expression: string) => {
            const id = ++wsIds;
            socket.send({ id, type: "tools/call", name: "calculator", arguments: { expression } });
            const reply = await socket.waitFor((m) => m.id === id, 60_000);
            const result = reply.result as { content: unknown; isError?: boolean };
            return { text: textOf(result.content), isError: result.isError === true };
          };
        }),
      );
    },
  },
  {
    name: "MCP 2025 (sessions under new names)",
    callers: (address, connections) =>
      Promise.all(Array.from({ length: connections }, (_, i) => mcpCaller("2025", address, `flood-${i}`))),
  },
  {
    name: "MCP 2026 (stateless, new names)",
    callers: (address, connections) =>
      Promise.all(Array.from({ length: connections }, (_, i) => mcpCaller("2026", address, `flood-${i}`))),
  },
];

describe.each(SURFACES)("$name", (surface) => {
  it(`another address's 2+2 answers within 2 s behind one address's flood of ${FLOOD_SIZE}; the flood's waits are bounded`, async () => {
    const flooders = await surface.callers(FLOODER, 6);
    const [prober] = await surface.callers(PROBER, 1);
    const flood = Array.from({ length: FLOOD_SIZE }, async (_, i) => {
      const started = performance.now();
      const result = await (flooders[i % flooders.length] as Caller)(HEAVY);
      return { ...result, ms: performance.now() - started };
    });
    // The flood has taken both workers and queued up behind them.
    await waitFor("the flood to queue", () => pool.queued > 0, 30_000, 5);
    const started = performance.now();
    const probe = await (prober as Caller)("2+2");
    const probeMs = performance.now() - started;
    const flooded = await Promise.all(flood);
    const longest = Math.max(...flooded.map((call) => call.ms));
    const busy = flooded.filter((call) => /busy/.test(call.text)).length;
    console.log(
      `${surface.name}: 2+2 from ${PROBER} in ${probeMs.toFixed(0)} ms behind ${FLOOD_SIZE} heavy calls from ` +
        `${FLOODER} over ${flooders.length} connections; flood: ${busy} refused busy, longest call ` +
        `${(longest / 1000).toFixed(1)} s (queue limit ${QUEUE_WAIT_MS / 1000} s + evaluation ${EVALUATION_MS / 1000} s)`,
    );
    expect(probe).toEqual({ text: "4", isError: false });
    expect(probeMs).toBeLessThan(2000);
    for (const call of flooded) {
      expect(call.isError).toBe(true);
      expect(call.text).toMatch(/busy|longer than 2 s/);
    }
    // Ran or refused, every flooded call ended within the queue limit and one evaluation (and some slack).
    expect(longest).toBeLessThan(QUEUE_WAIT_MS + EVALUATION_MS + 3000);
  }, 120_000);
});
