import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createMcpServer } from "../../src/mcp/create-mcp-server.js";
import { createMcpHttpHandler } from "../../src/mcp/mcp-http-handler.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { fetchFromAddress } from "../helpers/fetch-from-address.js";
import { waitFor } from "../helpers/wait-for.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const cli = path.join(repo, "dist/cli/main.js");

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

const tool = (name: string, ms = 0) =>
  defineTool({
    name,
    description: `tool ${name}`,
    inputSchema: { type: "object", properties: { text: { type: "string" } } },
    handler: async (args: { text?: string }) => {
      if (ms) await new Promise((resolve) => setTimeout(resolve, ms));
      return `${name}:${args.text ?? ""}`;
    },
  });

const JSON_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The last JSON-RPC message of a JSON or SSE response body. */
async function lastMessage(
  response: Response,
): Promise<{ id?: unknown; result?: unknown; error?: { code: number; message: string } }> {
  const text = await response.text();
  if (text.trimStart().startsWith("{")) return JSON.parse(text);
  const data = text.split("\n").filter((line) => line.startsWith("data: {"));
  return JSON.parse(data.at(-1)?.slice(6) ?? "{}");
}

let registry: ToolRegistry;
let server: RunningServer;
beforeAll(async () => {
  registry = new ToolRegistry();
  registry.registerAll([tool("echo"), tool("slow", 400)]);
  server = await startServer({ registry, executor: new ToolExecutor(registry), port: 0 });
});
afterAll(async () => {
  await server?.close();
});

async function openLegacySession(url: string, name = "raw") {
  const init = await fetch(url, {
    method: "POST",
    headers: JSON_HEADERS,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name, version: "1" } },
    }),
  });
  const session = init.headers.get("mcp-session-id");
  await init.text();
  const headers = { ...JSON_HEADERS, "mcp-session-id": session ?? "", "mcp-protocol-version": "2025-11-25" };
  await (
    await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }),
    })
  ).text();
  return { session, headers };
}

describe("list_changed reaches clients of both eras", () => {
  it("a 2025 client (session) and a 2026 client (subscriptions/listen) hear about an added and a removed tool", async () => {
    const url = new URL(`${server.url}/mcp`);
    const legacy = new ClientV1({ name: "legacy-listener", version: "1" });
    await legacy.connect(new HttpV1(url));
    let legacyHeard = 0;
    legacy.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      legacyHeard++;
    });
    const modern = new ClientV2(
      { name: "modern-listener", version: "1" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await modern.connect(new HttpV2(url));
    let modernHeard = 0;
    modern.setNotificationHandler("notifications/tools/list_changed", () => {
      modernHeard++;
    });
    const subscription = await modern.listen({ toolsListChanged: true });
    try {
      registry.register(tool("added"));
      await waitFor("both to hear the addition", () => legacyHeard >= 1 && modernHeard >= 1);
      expect((await modern.listTools()).tools.map((t) => t.name)).toContain("added");
      registry.unregister("added");
      await waitFor("both to hear the removal", () => legacyHeard >= 2 && modernHeard >= 2);
      expect((await legacy.listTools()).tools.map((t) => t.name)).not.toContain("added");
    } finally {
      await subscription.close();
      await modern.close();
      await legacy.close();
    }
  });
});

describe("requests the old server mishandled", () => {
  it("tools/call with arguments that are not an object gets -32602 and one plain sentence, on both eras", async () => {
    const url = `${server.url}/mcp`;
    const modern = await fetch(url, {
      method: "POST",
      headers: {
        ...JSON_HEADERS,
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "echo",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "echo", arguments: "text=hi", _meta: MODERN_META },
      }),
    });
    const { headers } = await openLegacySession(url);
    const legacy = await fetch(url, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "echo", arguments: [1] },
      }),
    });
    for (const [response, got] of [
      [modern, "a string"],
      [legacy, "an array"],
    ] as const) {
      const message = await lastMessage(response);
      expect(message.error?.code).toBe(-32602);
      expect(message.error?.message).toBe(
        `Invalid params: "arguments" of tools/call must be a JSON object of named arguments, e.g. {"expression": "2+2"}; got ${got}.`,
      );
    }
  });

  it("two requests with the same id in one session are both answered (one result, one -32600), none hangs", async () => {
    const url = `${server.url}/mcp`;
    const { headers } = await openLegacySession(url);
    const call = () =>
      fetch(url, {
        method: "POST",
        headers,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "tools/call",
          params: { name: "slow", arguments: {} },
        }),
      }).then(lastMessage);
    const answers = await Promise.race([
      Promise.all([call(), call()]),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("a request hung")), 10_000)),
    ]);
    expect(answers.map((answer) => answer.id)).toEqual([7, 7]);
    expect(answers.filter((answer) => answer.result !== undefined)).toHaveLength(1);
    expect(answers.find((answer) => answer.error)?.error?.code).toBe(-32600);
  });
});

describe("rate limits over MCP follow the caller, not the connection or the name it states", () => {
  it("a second session, a 2026 request or a new clientInfo.name from the same address shares its limit; another address has its own", async () => {
    registry.register(
      defineTool({
        name: "limited",
        description: "one call a minute per user",
        inputSchema: { type: "object" },
        rateLimit: { maxCalls: 1, windowMs: 60_000 },
        handler: () => "ran",
      }),
    );
    const url = new URL(`${server.url}/mcp`);
    const connect = async (name: string, modern: boolean, from = "127.0.0.1") => {
      const fetch = fetchFromAddress(from);
      if (modern) {
        const client = new ClientV2(
          { name, version: "1" },
          { versionNegotiation: { mode: { pin: "2026-07-28" } } },
        );
        await client.connect(new HttpV2(url, { fetch }));
        return {
          call: () => client.callTool({ name: "limited", arguments: {} }),
          close: () => client.close(),
        };
      }
      const client = new ClientV1({ name, version: "1" });
      await client.connect(new HttpV1(url, { fetch }));
      return { call: () => client.callTool({ name: "limited", arguments: {} }), close: () => client.close() };
    };
    const first = await connect("alice", false);
    const second = await connect("alice", false);
    const third = await connect("alice", true);
    // Today's trick: the same client under a new name each time used to be a new caller with a fresh limit.
    const renamed = await connect("alice-2", false);
    const renamedModern = await connect("alice-3", true);
    const other = await connect("alice", true, "127.0.0.2");
    try {
      expect((await first.call()).isError).toBeFalsy();
      expect((await second.call()).isError, "a new session escaped the limit").toBe(true);
      expect((await third.call()).isError, "a 2026 request escaped the limit").toBe(true);
      expect((await renamed.call()).isError, "a new clientInfo.name escaped the limit").toBe(true);
      expect((await renamedModern.call()).isError, "a new name on 2026 escaped the limit").toBe(true);
      expect((await other.call()).isError, "another address was limited").toBeFalsy();
    } finally {
      for (const client of [first, second, third, renamed, renamedModern, other]) await client.close();
      registry.unregister("limited");
    }
  });
});

describe("2025 session exhaustion", () => {
  it("a flood of initialize calls does not lock out a well-behaved client", async () => {
    const handler = createMcpHttpHandler({
      createServer: (era) => createMcpServer({ registry, executor: new ToolExecutor(registry) }, era),
      maxSessions: 20,
      maxSessionsPerClient: 4,
    });
    const flood = await startServer({ registry, executor: new ToolExecutor(registry), port: 0, mcp: false });
    flood.app.all("/mcp", (c) => handler.handle(c.req.raw));
    try {
      const url = `${flood.url}/mcp`;
      // 60 sessions from three "clients": each keeps at most 4, and the total stays within 20.
      for (let i = 0; i < 60; i++) await openLegacySession(url, `flooder-${i % 3}`);
      expect(handler.sessionCount).toBeLessThanOrEqual(12);
      const good = new ClientV1({ name: "good", version: "1" });
      await good.connect(new HttpV1(new URL(url)));
      try {
        const result = await good.callTool({ name: "echo", arguments: { text: "in" } });
        expect(JSON.stringify(result)).toContain("echo:in");
        // More flooding from one name evicts only that name's own sessions.
        for (let i = 0; i < 30; i++) await openLegacySession(url, "flooder-0");
        const again = await good.callTool({ name: "echo", arguments: { text: "still" } });
        expect(JSON.stringify(again)).toContain("echo:still");
      } finally {
        await good.close();
      }
    } finally {
      await handler.close();
      await flood.close();
    }
  });
});

describe("toolbridge mcp and stdin EOF", () => {
  for (const era of ["2025", "2026"] as const) {
    it(`${era}: a call piped in right before stdin closes is answered before the process exits`, async () => {
      const dir = await mkdtemp(path.join(tmpdir(), "toolbridge-mcp-eof-"));
      const child = spawn(process.execPath, [cli, "mcp", "--db", path.join(dir, "t.db")], { cwd: dir });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
      });
      const call = {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: {
          name: "calculator",
          arguments: { expression: "6*7" },
          ...(era === "2026" ? { _meta: MODERN_META } : {}),
        },
      };
      const lines =
        era === "2025"
          ? [
              {
                jsonrpc: "2.0",
                id: 1,
                method: "initialize",
                params: {
                  protocolVersion: "2025-11-25",
                  capabilities: {},
                  clientInfo: { name: "pipe", version: "1" },
                },
              },
              { jsonrpc: "2.0", method: "notifications/initialized" },
              call,
            ]
          : [call];
      child.stdin.end(`${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
      const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
      const answers = out
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { id?: number; result?: { content: { text: string }[] } });
      const answer = answers.find((message) => message.id === 2);
      expect(answer?.result?.content[0]?.text, out).toBe("42");
      expect(code).toBe(0);
      // Only an approval needs the database: serving ungated tools creates none.
      expect(existsSync(path.join(dir, "t.db"))).toBe(false);
      await rm(dir, { recursive: true, force: true });
    });
  }
});
