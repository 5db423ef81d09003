/**
 * Issue 15's starvation report, end to end: one MCP client (an HTTP session) floods the calculator with heavy
 * expressions; another client's `2+2` (another address) must still answer within a second. Real server on port 0, real SDK clients,
 * the calculator's real worker processes (a pool of two: the smallest, where a flood hurts most).
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { createCalculatorTool } from "../../src/tools/builtin/calculator.js";
import { MathWorkerPool } from "../../src/tools/builtin/math-worker-pool.js";
import { resultText } from "../../src/tools/normalize-tool-result.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { fetchFromAddress } from "../helpers/fetch-from-address.js";
import { waitFor } from "../helpers/wait-for.js";

const pool = new MathWorkerPool({ size: 2, timeoutMs: 2000, maxMemoryMb: 128, maxQueueWaitMs: 2000 });
let server: RunningServer;
const clients: Client[] = [];

/** A client from `address`: callers are told apart by where they connect from, not by the name they state. */
async function connect(name: string, address: string): Promise<Client> {
  const client = new Client({ name, version: "1" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), { fetch: fetchFromAddress(address) }),
  );
  clients.push(client);
  return client;
}

beforeAll(async () => {
  await pool.warmUp();
  const registry = new ToolRegistry();
  registry.register(createCalculatorTool({ pool }));
  server = await startServer({ registry, executor: new ToolExecutor(registry), port: 0 });
}, 90_000);

afterAll(async () => {
  for (const client of clients) await client.close();
  await server?.close();
  pool.close();
});

describe("calculator over MCP under a flood", () => {
  it("a second session's 2+2 answers within 1 s while the first floods 12 heavy expressions", async () => {
    const flooder = await connect("flooder", "127.0.0.1");
    const other = await connect("other", "127.0.0.2");
    const flood = Array.from(
      { length: 12 },
      () =>
        flooder.callTool(
          { name: "calculator", arguments: { expression: "det(random([700, 700]))" } },
          undefined,
          {
            timeout: 170_000,
          },
        ) as Promise<CallToolResult>,
    );
    // The flood has taken both workers and queued up behind them.
    await waitFor("the flood to queue", () => pool.queued > 0, 30_000, 5);
    const started = performance.now();
    const quick = (await other.callTool({
      name: "calculator",
      arguments: { expression: "2+2" },
    })) as CallToolResult;
    const elapsed = performance.now() - started;
    expect(resultText(quick)).toBe("4");
    expect(elapsed).toBeLessThan(1000);
    console.log(`MCP: 2+2 from a second session behind a 12-expression flood: ${elapsed.toFixed(0)} ms`);
    for (const result of await Promise.all(flood)) {
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/longer than 2 s|busy/);
    }
  }, 180_000);
});
