import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpServer } from "../../src/mcp/create-mcp-server.js";
import type { McpServerStatus } from "../../src/mcp/mcp-server-connection.js";
import {
  type MountedMcpServers,
  mountMcpServers,
  parseMcpServersConfig,
} from "../../src/mcp/mount-mcp-servers.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { resultText } from "../../src/tools/normalize-tool-result.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import type { RegistryChange } from "../../src/tools/tool-registry.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { waitFor } from "../helpers/wait-for.js";

const require = createRequire(import.meta.url);
const serverEntry = (pkg: string) =>
  path.join(path.dirname(require.resolve(`${pkg}/package.json`)), "dist/index.js");
const EVERYTHING = serverEntry("@modelcontextprotocol/server-everything");
const FILESYSTEM = serverEntry("@modelcontextprotocol/server-filesystem");

describe("mounting external MCP servers", () => {
  let root: string;
  let registry: ToolRegistry;
  let executor: ToolExecutor;
  let mounted: MountedMcpServers;
  const statuses: McpServerStatus[] = [];
  const changes: RegistryChange[] = [];

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), "toolbridge-mount-"));
    await writeFile(path.join(root, "hello.txt"), "hello from the filesystem server\n");
    registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: "local",
        description: "a local tool",
        inputSchema: { type: "object" },
        handler: () => "x",
      }),
    );
    registry.onChange((change) => changes.push(change));
    executor = new ToolExecutor(registry);
    const config = parseMcpServersConfig({
      everything: { command: process.execPath, args: [EVERYTHING] },
      "file system": { command: process.execPath, args: [FILESYSTEM, root] },
      missing: { command: "toolbridge-no-such-command" },
      crashing: {
        command: process.execPath,
        args: ["-e", "console.error('FATAL: API_KEY is not set'); process.exit(3)"],
      },
      off: { command: "whatever", disabled: true },
    });
    mounted = await mountMcpServers(registry, config, {
      onStatus: (status) => statuses.push(status),
      restart: { initialDelayMs: 100, maxDelayMs: 1000 },
    });
  });
  afterAll(async () => {
    await mounted?.close();
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("lists both servers' tools, namespaced by server, next to the local ones", () => {
    const names = registry.names();
    expect(names).toContain("local");
    expect(names).toContain("everything.echo");
    expect(names).toContain("everything.get-sum");
    // "file system" is not a valid name part: the space becomes "_".
    expect(names).toContain("file_system.read_text_file");
    expect(names).toContain("file_system.list_directory");
    expect(registry.get("everything.echo")?.category).toBe("mcp:everything");
    const byName = Object.fromEntries(mounted.status().map((s) => [s.name, s]));
    expect(Object.keys(byName)).toEqual(["everything", "file system", "missing", "crashing"]);
    expect(byName.everything?.state).toBe("ready");
    expect(byName.everything?.toolCount).toBe(names.filter((n) => n.startsWith("everything.")).length);
  });

  it("reports servers that fail to start, with the reason, without stopping the others", () => {
    const byName = Object.fromEntries(mounted.status().map((s) => [s.name, s]));
    expect(byName.missing?.state).toBe("error");
    expect(byName.missing?.lastError).toMatch(/"toolbridge-no-such-command" was not found/);
    expect(byName.crashing?.state).toBe("error");
    expect(byName.crashing?.lastError).toMatch(/FATAL: API_KEY is not set/);
    expect(statuses.some((s) => s.name === "missing" && s.state === "error")).toBe(true);
  });

  it("calls mounted tools through the registry and executor with their arguments", async () => {
    expect(resultText(await executor.call("everything.get-sum", { a: 19, b: 23 }))).toMatch(/42/);
    const file = await executor.call("file_system.read_text_file", { path: path.join(root, "hello.txt") });
    expect(file.isError).toBeFalsy();
    expect(resultText(file)).toContain("hello from the filesystem server");
    // Validation happens before the call leaves toolbridge.
    const invalid = await executor.execute({ name: "everything.get-sum", arguments: { a: "x" } });
    expect(invalid.status).toBe("invalid-input");
  });

  it("proxies mounted tools through toolbridge's own MCP server, forwarding progress", async () => {
    const server = createMcpServer({ registry, executor });
    const client = new Client({ name: "proxy-test", version: "1" });
    const [a, b] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(b), client.connect(a)]);
    try {
      const listed: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        listed.push(...page.tools.map((t) => t.name));
        cursor = page.nextCursor;
      } while (cursor);
      expect(listed).toContain("everything.echo");
      expect(listed).toContain("file_system.read_text_file");

      const echoed = await client.callTool({
        name: "everything.echo",
        arguments: { message: "through the proxy" },
      });
      expect(resultText(echoed as never)).toContain("through the proxy");

      const progress: number[] = [];
      const long = await client.callTool(
        { name: "everything.trigger-long-running-operation", arguments: { duration: 0.3, steps: 3 } },
        CallToolResultSchema,
        { onprogress: (p) => progress.push(p.progress) },
      );
      expect(long.isError).toBeFalsy();
      // server-everything itself delivers the progress of all but (racily) its last step before answering.
      expect(progress.length).toBeGreaterThanOrEqual(2);
      expect(progress).toEqual([...progress].sort((x, y) => x - y));
    } finally {
      await client.close();
      await server.close();
    }
  });

  it("restarts a server whose process dies; its tools are unavailable meanwhile and come back", async () => {
    const before = mounted.status().find((s) => s.name === "everything")!;
    expect(before.pid).toBeGreaterThan(0);
    changes.length = 0;
    process.kill(before.pid!, "SIGKILL");

    await waitFor("everything to be marked restarting", () =>
      statuses.some((s) => s.name === "everything" && s.state === "restarting"),
    );
    expect(changes.some((c) => c.type === "unregistered" && c.name === "everything.echo")).toBe(true);
    const after = await waitFor("everything to come back", () => {
      const s = mounted.status().find((x) => x.name === "everything");
      return s?.state === "ready" && s.pid !== before.pid ? s : undefined;
    });
    expect(after.restarts).toBe(1);
    expect(changes.some((c) => c.type === "registered" && c.name === "everything.echo")).toBe(true);
    expect(resultText(await executor.call("everything.echo", { message: "back again" }))).toContain(
      "back again",
    );
  });
});

describe("mounting a Streamable HTTP server", () => {
  let origin: ToolRegistry;
  let http: RunningServer;
  let registry: ToolRegistry;
  let mounted: MountedMcpServers;

  beforeAll(async () => {
    origin = new ToolRegistry();
    origin.register(
      defineTool({
        name: "shout",
        description: "upper-cases text",
        inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
        handler: (args: { text: string }) => args.text.toUpperCase(),
      }),
    );
    http = await startServer({
      registry: origin,
      executor: new ToolExecutor(origin),
      port: 0,
      token: "t0ken",
    });
    registry = new ToolRegistry();
    mounted = await mountMcpServers(
      registry,
      parseMcpServersConfig({
        remote: { url: `${http.url}/mcp`, headers: { Authorization: "Bearer t0ken" } },
      }),
    );
  });
  afterAll(async () => {
    await mounted?.close();
    await http?.close();
  });

  it("mounts its tools with the configured headers and follows its list_changed", async () => {
    expect(mounted.status()[0]?.state).toBe("ready");
    expect(resultText(await new ToolExecutor(registry).call("remote.shout", { text: "hi" }))).toBe("HI");

    origin.register(
      defineTool({
        name: "whisper",
        description: "lower-cases",
        inputSchema: { type: "object" },
        handler: () => "hi",
      }),
    );
    await waitFor("remote.whisper to appear", () => registry.has("remote.whisper"));
    origin.unregister("shout");
    await waitFor("remote.shout to disappear", () => !registry.has("remote.shout"));
  });

  it("reports a wrong token as a start failure", async () => {
    const other = new ToolRegistry();
    const bad = await mountMcpServers(other, parseMcpServersConfig({ remote: { url: `${http.url}/mcp` } }));
    try {
      expect(bad.status()[0]?.state).toBe("error");
      expect(bad.status()[0]?.lastError).toMatch(/401|Unauthorized/);
      expect(other.size).toBe(0);
    } finally {
      await bad.close();
    }
  });
});
