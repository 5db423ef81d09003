import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ToolListChangedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createAgent } from "../../src/agent/create-agent.js";
import {
  type MountedMcpServers,
  mountMcpServers,
  parseMcpServersConfig,
} from "../../src/mcp/mount-mcp-servers.js";
import { createReplayModel } from "../../src/models/replay-model.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { ToolSettings } from "../../src/server/tools-api/tool-settings.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { SqliteToolSettingsStore } from "../../src/store/sqlite-tool-settings-store.js";
import { defineTool } from "../../src/tools/define-tool.js";
import { ToolNotFoundError } from "../../src/tools/errors.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { send, waitFor } from "./http.js";

const require = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);
// A GitHub token shape: the redactor knows it without any configuration.
const SECRET = `ghp_${"a1B2c3D4e5".repeat(4).slice(0, 36)}`;

vi.setConfig({ testTimeout: 60_000, hookTimeout: 60_000 });

function makeRegistry(): ToolRegistry {
  const registry = new ToolRegistry({ pageSize: 3 });
  registry.registerAll([
    defineTool({
      name: "add",
      description: "adds two numbers",
      category: "math",
      inputSchema: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      handler: (args: { a: number; b: number }) => String(args.a + args.b),
    }),
    defineTool({
      name: "delete_note",
      description: "deletes a note",
      annotations: { destructiveHint: true },
      inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] },
      handler: (args: { id: string }) => `deleted ${args.id}`,
    }),
    defineTool({
      name: "fails",
      description: "always throws",
      inputSchema: { type: "object" },
      handler: () => {
        throw new Error("the disk is full");
      },
    }),
    defineTool({
      name: "slow",
      description: "takes too long",
      timeoutMs: 100,
      inputSchema: { type: "object" },
      handler: (_args, context) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => resolve("late"), 10_000);
          context.signal.addEventListener("abort", () => clearTimeout(timer));
        }),
    }),
    defineTool({
      name: "leak",
      description: "returns a credential",
      inputSchema: { type: "object" },
      handler: () => `the key is ${SECRET}`,
    }),
  ]);
  return registry;
}

const dir = mkdtempSync(path.join(tmpdir(), "tb-tools-api-"));
const dbFile = path.join(dir, "toolbridge.db");

interface Serving {
  server: RunningServer;
  store: SqliteStore;
  registry: ToolRegistry;
  mounted: MountedMcpServers;
  settings: ToolSettings;
  close(): Promise<void>;
}

/** What `toolbridge serve` builds: registry, mounted servers, settings from the SQLite file, the HTTP app. */
async function serve(): Promise<Serving> {
  const registry = makeRegistry();
  const store = new SqliteStore(dbFile, { synchronous: "normal" });
  const settings = await ToolSettings.load({ registry, store: new SqliteToolSettingsStore(store.db) });
  const mounted = await mountMcpServers(
    registry,
    parseMcpServersConfig({ everything: { command: process.execPath, args: [EVERYTHING] } }),
    { restart: { initialDelayMs: 100 } },
  );
  const server = await startServer({
    registry,
    executor: new ToolExecutor(registry),
    port: 0,
    toolsApi: { settings, mcpServers: mounted, builtinTools: new Set(["add", "delete_note"]) },
  });
  return {
    server,
    store,
    registry,
    mounted,
    settings,
    async close() {
      await server.close();
      await mounted.close();
      await store.close();
    },
  };
}

let s: Serving;
beforeAll(async () => {
  s = await serve();
});
afterAll(async () => {
  await s?.close();
  rmSync(dir, { recursive: true, force: true });
});

const api = (p: string) => `${s.server.url}/api${p}`;
const patch = (name: string, body: string) =>
  send(api(`/tools/${encodeURIComponent(name)}`), { method: "PATCH", body });
const call = (name: string, body: unknown) =>
  send(api(`/tools/${name}/call`), { body: JSON.stringify(body) });

async function mcpClient(url: string) {
  const client = new Client({ name: "api-test", version: "1" });
  let listChanged = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChanged++;
  });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
  return {
    client,
    listChanged: () => listChanged,
    /** Every tool name, following the pages (the registry pages by 3). */
    async names() {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor === undefined ? {} : { cursor });
        names.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
      } while (cursor);
      return names;
    },
  };
}

describe("GET /api/tools", () => {
  it("lists every tool with its source, effective policy and enabled state, page by page", async () => {
    const seen: Array<Record<string, unknown> & { name: string }> = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await send(api(`/tools${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ""}`));
      expect(page.status).toBe(200);
      expect(page.json.tools.length).toBeLessThanOrEqual(3);
      seen.push(...page.json.tools);
      cursor = page.json.nextCursor;
      pages++;
    } while (cursor);
    expect(pages).toBeGreaterThan(2);
    const byName = Object.fromEntries(seen.map((tool) => [tool.name, tool]));
    expect(byName.add).toMatchObject({
      source: { type: "builtin" },
      category: "math",
      enabled: true,
      policy: "always",
      inputSchema: { required: ["a", "b"] },
    });
    expect(byName.delete_note).toMatchObject({
      source: { type: "builtin" },
      policy: "ask",
      requiresApproval: true,
    });
    expect(byName.leak?.source).toEqual({ type: "config" });
    expect(byName["everything.echo"]).toMatchObject({
      source: { type: "mcp", server: "everything" },
      category: "mcp:everything",
      enabled: true,
    });
    expect(seen.map((tool) => tool.name)).toEqual([...seen.map((tool) => tool.name)].sort());
  });

  it("filters by category, takes a page size, and refuses a bad cursor or limit with 400", async () => {
    const math = await send(api("/tools?category=math"));
    expect(math.json.tools.map((tool: { name: string }) => tool.name)).toEqual(["add"]);
    const two = await send(api("/tools?limit=2&category=mcp:everything"));
    expect(two.json.tools).toHaveLength(2);
    expect(two.json.nextCursor).toBeTruthy();
    const badCursor = await send(api("/tools?cursor=nonsense"));
    expect(badCursor.status).toBe(400);
    expect(badCursor.json.error).toMatchObject({ type: "invalid_request_error", code: "invalid_cursor" });
    const badLimit = await send(api("/tools?limit=0"));
    expect(badLimit.status).toBe(400);
    expect(badLimit.json.error.message).toContain("`limit`");
  });
});

describe("POST /api/tools/{name}/call", () => {
  it("runs the executor path: a result, a tool error and a validation error are 200s; timeout and redaction apply", async () => {
    const ok = await call("add", { arguments: { a: 2, b: 3 } });
    expect(ok.status).toBe(200);
    expect(ok.json).toEqual({ content: [{ type: "text", text: "5" }] });

    const failed = await call("fails", {});
    expect(failed.status).toBe(200);
    expect(failed.json.isError).toBe(true);
    expect(failed.json.content[0].text).toContain("the disk is full");

    const invalid = await call("add", { arguments: { a: "two" } });
    expect(invalid.status).toBe(200);
    expect(invalid.json.isError).toBe(true);
    expect(invalid.json.content[0].text).toMatch(/`b` is required/);

    const slow = await call("slow", {});
    expect(slow.json.isError).toBe(true);
    expect(slow.json.content[0].text).toContain("timed out after 100ms");

    const leak = await call("leak", {});
    expect(leak.body).not.toContain(SECRET);
    expect(leak.json.content[0].text).toContain("[REDACTED]");

    const mounted = await call("everything.echo", { arguments: { message: "hi there" } });
    expect(mounted.json.content[0].text).toContain("hi there");
  });

  it("runs a dry run of a read-only tool set to ask without confirm: it reports what it would do and runs nothing", async () => {
    let ran = 0;
    s.registry.register(
      defineTool({
        name: "peek",
        description: "reads a value",
        annotations: { readOnlyHint: true },
        inputSchema: { type: "object" },
        handler: () => `value ${++ran}`,
      }),
    );
    try {
      expect((await patch("peek", '{"policy": "ask"}')).status).toBe(200);
      const asked = await call("peek", {});
      expect(asked.status).toBe(403);
      expect(asked.json.error.message).toMatch(/needs a person.s approval/);
      const dry = await call("peek", { dryRun: true });
      expect(dry.status).toBe(200);
      expect(dry.json.content[0].text).toMatch(/^\[dry run\] Nothing was changed: would call peek/);
      expect(ran).toBe(0);
      // Confirmed, a read-only tool runs in a dry run as it always did.
      const confirmed = await call("peek", { dryRun: true, confirm: true });
      expect(confirmed.json).toEqual({ content: [{ type: "text", text: "value 1" }] });
    } finally {
      await patch("peek", '{"policy": null}');
      s.registry.unregister("peek");
    }
  });

  it("answers an unknown tool 404 and malformed JSON or a non-object body 400, running nothing", async () => {
    const unknown = await call("no_such_tool", {});
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ type: "not_found_error", code: "tool_not_found" });
    const malformed = await send(api("/tools/add/call"), { body: '{"arguments": {"a": 1,' });
    expect(malformed.status).toBe(400);
    expect(malformed.json.error.code).toBe("invalid_json");
    const array = await send(api("/tools/add/call"), { body: "[1,2]" });
    expect(array.status).toBe(400);
    const noRoute = await send(api("/toolz"));
    expect(noRoute.status).toBe(404);
    expect(noRoute.json.error.code).toBe("route_not_found");
    const extra = await call("add", { args: { a: 1, b: 2 } });
    expect(extra.status).toBe(400);
    expect(extra.json.error.message).toContain("`args`");
  });

  it('runs an "ask" tool only with "confirm": true, and a "never" tool not at all (403)', async () => {
    const unconfirmed = await call("delete_note", { arguments: { id: "n1" } });
    expect(unconfirmed.status).toBe(403);
    expect(unconfirmed.json.error.code).toBe("approval_required");
    expect(unconfirmed.json.error.message).toContain('"confirm": true');
    const confirmed = await call("delete_note", { arguments: { id: "n1" }, confirm: true });
    expect(confirmed.status).toBe(200);
    expect(confirmed.json.content[0].text).toBe("deleted n1");

    expect((await patch("add", '{"policy": "never"}')).status).toBe(200);
    try {
      const refused = await call("add", { arguments: { a: 1, b: 1 }, confirm: true });
      expect(refused.status).toBe(403);
      expect(refused.json.error.code).toBe("tool_policy_never");
    } finally {
      await patch("add", '{"policy": null}');
    }
  });
});

describe("PATCH /api/tools/{name}", () => {
  it("refuses bad input with a clear 4xx and changes nothing", async () => {
    const before = (await send(api("/tools/add"))).json;
    const cases: Array<[string, number, RegExp]> = [
      ['{"policy": "sometimes"}', 422, /`policy` must be one of "always", "ask", "never"/],
      ['{"enabled": "no"}', 422, /`enabled` must be true, false/],
      ['{"enabled": false, "colour": "red"}', 422, /unknown field `colour`/],
      ["{}", 422, /nothing to change/],
      ['"off"', 422, /must be a JSON object/],
      ['{"enabled": false', 400, /not valid JSON/],
    ];
    for (const [body, status, message] of cases) {
      const response = await patch("add", body);
      expect(response.status, body).toBe(status);
      expect(response.json.error.message, body).toMatch(message);
      expect(response.json.error.message, body).toContain("Nothing was changed");
    }
    expect((await send(api("/tools/add"))).json).toEqual(before);
    expect(await new SqliteToolSettingsStore(s.store.db).list()).toEqual([]);
    expect((await patch("no_such_tool", '{"enabled": false}')).status).toBe(404);
    expect((await patch("bad name!", '{"enabled": false}')).status).toBe(400);
  });

  it("switches a tool off everywhere at once: /api, the executor, /mcp (with list_changed), and back on", async () => {
    const mcp = await mcpClient(s.server.url);
    try {
      expect(await mcp.names()).toContain("add");
      const off = await patch("add", '{"enabled": false}');
      expect(off.status).toBe(200);
      expect(off.json).toMatchObject({ name: "add", enabled: false });

      await waitFor("list_changed", () => mcp.listChanged() > 0);
      expect(await mcp.names()).not.toContain("add");
      const listed = (await send(api("/tools?category=math"))).json.tools;
      expect(listed).toEqual([expect.objectContaining({ name: "add", enabled: false })]);
      const refused = await call("add", { arguments: { a: 1, b: 2 } });
      expect(refused.status).toBe(404);
      expect(refused.json.error.code).toBe("tool_disabled");
      expect(s.registry.get("add")).toBeUndefined();
      await expect(new ToolExecutor(s.registry).call("add", { a: 1, b: 2 })).rejects.toThrow(
        ToolNotFoundError,
      );
      await expect(mcp.client.callTool({ name: "add", arguments: { a: 1, b: 2 } })).rejects.toThrow(
        /Unknown tool/,
      );

      const seen = mcp.listChanged();
      expect((await patch("add", '{"enabled": true}')).json.enabled).toBe(true);
      await waitFor("second list_changed", () => mcp.listChanged() > seen);
      expect(await mcp.names()).toContain("add");
    } finally {
      await mcp.client.close();
    }
  });

  it('makes /mcp follow the policy: "never" is not offered, "always" runs a destructive tool without asking', async () => {
    const mcp = await mcpClient(s.server.url);
    try {
      // Default "ask", and this client cannot elicit: refused with the explanation.
      const asked = await mcp.client.callTool({ name: "delete_note", arguments: { id: "x" } });
      expect(asked.isError).toBe(true);
      expect(JSON.stringify(asked.content)).toContain("needs a person's approval");

      await patch("delete_note", '{"policy": "always"}');
      const ran = await mcp.client.callTool({ name: "delete_note", arguments: { id: "x" } });
      expect(ran.content).toEqual([{ type: "text", text: "deleted x" }]);

      const seen = mcp.listChanged();
      await patch("delete_note", '{"policy": "never"}');
      await waitFor("list_changed", () => mcp.listChanged() > seen);
      expect(await mcp.names()).not.toContain("delete_note");
      const listed = (await send(api("/tools/delete_note"))).json;
      expect(listed).toMatchObject({
        enabled: true,
        policy: "never",
        policySource: "setting",
        configuredPolicy: "ask",
      });
      // Reset: the policy comes from the tool's own default again (destructive → ask), and says so.
      await patch("delete_note", '{"policy": null}');
      expect((await send(api("/tools/delete_note"))).json).toMatchObject({
        policy: "ask",
        policySource: "default",
      });
    } finally {
      await patch("delete_note", '{"policy": null}');
      await mcp.client.close();
    }
  });

  it("governs the next agent run through `approval`: a PATCH to never refuses the call the model makes", async () => {
    const run = async () => {
      const agent = createAgent({
        model: createReplayModel([{ calls: [{ name: "add", arguments: { a: 1, b: 2 } }] }, { text: "done" }]),
        tools: new ToolExecutor(s.registry),
        approval: s.settings.approval,
      });
      return agent.run("add them").result;
    };
    const before = await run();
    expect(before.steps[0]?.calls[0]?.result?.content).toEqual([{ type: "text", text: "3" }]);
    await patch("add", '{"policy": "never"}');
    try {
      const after = await run();
      const result = after.steps[0]?.calls[0]?.result;
      expect(result?.isError).toBe(true);
      expect(after.steps[0]?.calls[0]?.approval?.policy).toBe("never");
    } finally {
      await patch("add", '{"policy": null}');
    }
  });
});

describe("mounted MCP servers", () => {
  it("GET /api/mcp-servers shows each server's state, transport and tools; restart brings it back", async () => {
    const list = await send(api("/mcp-servers"));
    expect(list.status).toBe(200);
    const [everything] = list.json.servers;
    expect(everything).toMatchObject({
      name: "everything",
      state: "ready",
      transport: "stdio",
      lastError: null,
    });
    expect(everything.toolCount).toBeGreaterThan(3);
    expect(Array.isArray(everything.stderrTail)).toBe(true);

    const restarted = await send(api("/mcp-servers/everything/restart"), { method: "POST" });
    expect(restarted.status).toBe(200);
    expect(restarted.json).toMatchObject({ name: "everything", state: "ready" });
    expect(restarted.json.toolCount).toBe(everything.toolCount);
    const missing = await send(api("/mcp-servers/nope/restart"), { method: "POST" });
    expect(missing.status).toBe(404);
    expect(missing.json.error.message).toContain("mounted: everything");
  });

  it("hides a mounted server's disabled tool everywhere, also after the server comes back", async () => {
    const mcp = await mcpClient(s.server.url);
    try {
      expect((await patch("everything.echo", '{"enabled": false}')).status).toBe(200);
      await waitFor("list_changed", () => mcp.listChanged() > 0);
      expect(await mcp.names()).not.toContain("everything.echo");
      expect((await call("everything.echo", { arguments: { message: "x" } })).status).toBe(404);

      await s.mounted.restart("everything");
      expect(s.registry.get("everything.echo", { includeDisabled: true })).toBeDefined();
      expect(s.registry.get("everything.echo")).toBeUndefined();
      expect(await mcp.names()).not.toContain("everything.echo");
      expect(await mcp.names()).toContain("everything.get-sum");
    } finally {
      await mcp.client.close();
    }
  });

  it("keeps settings across a restart of serve, applied to tools as they appear", async () => {
    await patch("delete_note", '{"policy": "always"}');
    await s.close();
    s = await serve();
    const tools = Object.fromEntries(
      (await send(api("/tools?limit=500"))).json.tools.map((tool: { name: string }) => [tool.name, tool]),
    );
    expect(tools["everything.echo"]).toMatchObject({ enabled: false });
    expect(tools.delete_note).toMatchObject({ policy: "always" });
    expect(s.registry.get("everything.echo")).toBeUndefined();
    // A setting for a tool of a server that is not connected is kept (and can be made), and applies once the tool is
    // there.
    await s.mounted.close();
    expect(s.registry.get("everything.echo", { includeDisabled: true })).toBeUndefined();
    expect(s.settings.get("everything.echo")).toMatchObject({ enabled: false });
    const early = await patch("everything.get-sum", '{"enabled": false}');
    expect(early.status).toBe(200);
    expect(early.json).toEqual({ name: "everything.get-sum", registered: false, enabled: false });
    const again = await mountMcpServers(
      s.registry,
      parseMcpServersConfig({ everything: { command: process.execPath, args: [EVERYTHING] } }),
    );
    try {
      expect(s.registry.get("everything.get-sum", { includeDisabled: true })).toBeDefined();
      expect(s.registry.get("everything.get-sum")).toBeUndefined();
      expect(s.registry.get("everything.echo")).toBeUndefined();
      expect(s.registry.get("everything.get-env")).toBeDefined();
    } finally {
      await again.close();
    }
  });
});
