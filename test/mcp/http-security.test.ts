import { request as httpRequest } from "node:http";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { currentMcpRequest } from "../../src/mcp/mcp-request-context.js";
import { type RunningServer, ServerConfigError, startServer } from "../../src/server/start-server.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";

const TOKEN = "s3cret-token-for-tests";
const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
});

function makeRegistry() {
  const registry = new ToolRegistry();
  registry.register(
    defineTool({
      name: "add",
      description: "adds two numbers",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      handler: (args: { a: number; b: number }) => String(args.a + args.b),
    }),
  );
  registry.register(
    defineTool({
      name: "drop_stream",
      description: "closes its SSE stream before answering",
      inputSchema: { type: "object" },
      handler: async () => {
        const close = currentMcpRequest()?.closeSSEStream;
        close?.();
        await new Promise((resolve) => setTimeout(resolve, 50));
        return close ? "answered after the stream was dropped" : "stream could not be closed";
      },
    }),
  );
  return registry;
}

/** A raw HTTP request, so that Host and Origin are exactly what a browser or an attacker would send. */
function send(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; chunked?: boolean },
): Promise<{ status: number; body: string; headers: Record<string, string | string[] | undefined> }> {
  return new Promise((resolve, reject) => {
    let responded = false;
    const target = new URL(url);
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: options.method ?? "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...options.headers,
        },
      },
      (res) => {
        responded = true;
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
            headers: res.headers,
          }),
        );
      },
    );
    // A server may answer (413) before it has read the whole body and then drop the connection: keep the answer.
    req.on("error", (error) => {
      if (!responded) reject(error);
    });
    if (options.body !== undefined) {
      if (options.chunked) {
        // No Content-Length: the limit must hold for streamed bodies too.
        const body = Buffer.from(options.body);
        for (let i = 0; i < body.length; i += 64 * 1024) req.write(body.subarray(i, i + 64 * 1024));
      } else {
        req.setHeader("content-length", Buffer.byteLength(options.body));
        req.write(options.body);
      }
    }
    req.end();
  });
}

describe("toolbridge serve over real HTTP on loopback", () => {
  let open: RunningServer;
  let guarded: RunningServer;

  beforeAll(async () => {
    const registry = makeRegistry();
    open = await startServer({
      registry,
      executor: new ToolExecutor(registry),
      port: 0,
      maxBodyBytes: 64 * 1024,
    });
    guarded = await startServer({ registry, executor: new ToolExecutor(registry), port: 0, token: TOKEN });
  });
  afterAll(async () => {
    await open?.close();
    await guarded?.close();
  });

  it("binds to 127.0.0.1 by default", () => {
    expect(open.host).toBe("127.0.0.1");
    expect(open.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("rejects a foreign Origin and a foreign Host with 403 (DNS rebinding) and accepts its own", async () => {
    const port = new URL(open.url).port;
    const foreignOrigin = await send(`${open.url}/mcp`, {
      headers: { origin: "https://evil.example" },
      body: initialize,
    });
    expect(foreignOrigin.status).toBe(403);
    expect(JSON.parse(foreignOrigin.body).error.message).toContain('Origin "https://evil.example"');

    const rebound = await send(`${open.url}/mcp`, {
      headers: { host: `evil.example:${port}`, origin: `http://evil.example:${port}` },
      body: initialize,
    });
    expect(rebound.status).toBe(403);

    const sameOrigin = await send(`${open.url}/mcp`, {
      headers: { host: `localhost:${port}`, origin: `http://localhost:${port}` },
      body: initialize,
    });
    expect(sameOrigin.status).toBe(200);
    expect(sameOrigin.headers["mcp-session-id"]).toBeTruthy();
  });

  it("answers a missing or wrong bearer token with 401 and serves the right one", async () => {
    const missing = await send(`${guarded.url}/mcp`, { body: initialize });
    expect(missing.status).toBe(401);
    expect(missing.headers["www-authenticate"]).toMatch(/^Bearer/);

    const wrong = await send(`${guarded.url}/mcp`, {
      headers: { authorization: "Bearer nope" },
      body: initialize,
    });
    expect(wrong.status).toBe(401);

    const client = new Client({ name: "test", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${guarded.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${TOKEN}` } },
      }),
    );
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["add", "drop_stream"]);
    expect(await client.callTool({ name: "add", arguments: { a: 2, b: 3 } })).toEqual({
      content: [{ type: "text", text: "5" }],
    });
    await client.close();
  });

  it("rejects an oversized body with 413, with or without Content-Length", async () => {
    const huge = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "ping",
      params: { pad: "x".repeat(200 * 1024) },
    });
    const declared = await send(`${open.url}/mcp`, { body: huge });
    expect(declared.status).toBe(413);
    const streamed = await send(`${open.url}/mcp`, { body: huge, chunked: true });
    expect(streamed.status).toBe(413);
  });

  it("keeps sessions: unknown session ids get 404, DELETE ends a session", async () => {
    const unknown = await send(`${open.url}/mcp`, {
      headers: { "mcp-session-id": "no-such-session" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }),
    });
    expect(unknown.status).toBe(404);

    const client = new Client({ name: "test", version: "1" });
    const transport = new StreamableHTTPClientTransport(new URL(`${open.url}/mcp`));
    await client.connect(transport);
    const sessionId = transport.sessionId!;
    expect(open.mcp?.sessionCount).toBeGreaterThan(0);
    await transport.terminateSession();
    const after = await send(`${open.url}/mcp`, {
      headers: { "mcp-session-id": sessionId, "mcp-protocol-version": "2025-11-25" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
    });
    expect(after.status).toBe(404);
    await client.close();
  });

  it("resumes a call whose SSE stream broke: the client reconnects with Last-Event-ID and gets the result", async () => {
    const client = new Client({ name: "test", version: "1" });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${open.url}/mcp`)));
    const result = await client.callTool({ name: "drop_stream", arguments: {} });
    expect(result.content).toEqual([{ type: "text", text: "answered after the stream was dropped" }]);
    await client.close();
  });

  it("refuses to listen beyond loopback without a token", async () => {
    const registry = makeRegistry();
    await expect(
      startServer({ registry, executor: new ToolExecutor(registry), port: 0, host: "0.0.0.0" }),
    ).rejects.toThrow(ServerConfigError);
  });
});
