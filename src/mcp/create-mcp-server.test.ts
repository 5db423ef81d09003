import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import {
  CallToolResultSchema,
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { createMcpServer, followRegistryChanges } from "./create-mcp-server.js";
import { McpApprovals } from "./mcp-approvals.js";
import { currentMcpRequest } from "./mcp-request-context.js";

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

function makeTool(name: string) {
  return defineTool({
    name,
    description: `tool ${name}`,
    inputSchema: z.object({ text: z.string() }),
    handler: ({ text }) => `${name}:${text}`,
  });
}

async function connect(registry: ToolRegistry, approvals?: McpApprovals) {
  const server = createMcpServer({
    registry,
    executor: new ToolExecutor(registry),
    ...(approvals ? { approvals } : {}),
  });
  const client = new Client({ name: "test", version: "1" });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  const unsubscribe = followRegistryChanges(
    registry,
    () => void server.sendToolListChanged().catch(() => {}),
  );
  closers.push(async () => {
    unsubscribe();
    await client.close();
    await server.close();
  });
  return client;
}

async function expectMcpError(promise: Promise<unknown>, code: number, text: RegExp) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  expect((error as McpError).code).toBe(code);
  expect((error as McpError).message).toMatch(text);
}

describe("createMcpServer", () => {
  it("pages tools/list with cursors and rejects a cursor it did not issue with -32602", async () => {
    const registry = new ToolRegistry({ pageSize: 2 });
    registry.registerAll(["e", "d", "c", "b", "a"].map(makeTool));
    const client = await connect(registry);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.listTools(cursor === undefined ? {} : { cursor });
      seen.push(...page.tools.map((t) => t.name));
      cursor = page.nextCursor;
      pages++;
    } while (cursor);
    expect(seen).toEqual(["a", "b", "c", "d", "e"]);
    expect(pages).toBe(3);

    await expectMcpError(
      client.listTools({ cursor: "not-a-cursor" }),
      ErrorCode.InvalidParams,
      /Invalid cursor/,
    );
  });

  it("never offers a `never` tool: not listed, and calling it is an unknown tool", async () => {
    const registry = new ToolRegistry();
    registry.registerAll([makeTool("echo"), makeTool("hidden")]);
    const client = await connect(registry, new McpApprovals({ policies: { hidden: "never" } }));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["echo"]);
    await expectMcpError(
      client.callTool({ name: "hidden", arguments: { text: "x" } }),
      ErrorCode.InvalidParams,
      /Unknown tool "hidden"/,
    );
  });

  it("runs an `ask` tool for a client without elicitation only when the config says the client asks its user", async () => {
    const registry = new ToolRegistry();
    let runs = 0;
    registry.register(
      defineTool({
        name: "gated",
        description: "needs approval",
        inputSchema: z.object({}),
        requiresApproval: true,
        handler: () => {
          runs++;
          return "ran";
        },
      }),
    );
    const refused = await (await connect(registry)).callTool({ name: "gated", arguments: {} });
    expect(refused.isError).toBe(true);
    expect(JSON.stringify(refused.content)).toMatch(/Nothing ran.*clientAsksUser/);
    expect(runs).toBe(0);
    const trusted = await connect(registry, new McpApprovals({ clientAsksUser: true }));
    expect(JSON.stringify((await trusted.callTool({ name: "gated", arguments: {} })).content)).toContain(
      "ran",
    );
    expect(runs).toBe(1);
  });

  it("answers an unknown tool with JSON-RPC -32602 and bad arguments with a model-readable isError result", async () => {
    const registry = new ToolRegistry();
    registry.register(makeTool("echo"));
    const client = await connect(registry);

    await expectMcpError(
      client.callTool({ name: "nope", arguments: {} }),
      ErrorCode.InvalidParams,
      /Unknown tool "nope"/,
    );

    const bad = await client.callTool({ name: "echo", arguments: { text: 42 } });
    expect(bad.isError).toBe(true);
    expect(JSON.stringify(bad.content)).toMatch(/text/);

    const good = await client.callTool({ name: "echo", arguments: { text: "hi" } });
    expect(good).toEqual({ content: [{ type: "text", text: "echo:hi" }] });
  });

  it("notifies list_changed once per burst of registry changes", async () => {
    const registry = new ToolRegistry();
    const client = await connect(registry);
    let notifications = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      notifications++;
    });
    registry.registerAll([makeTool("x"), makeTool("y"), makeTool("z")]);
    await vi.waitFor(() => expect(notifications).toBe(1));
    // A round trip after it: a second notification for the same burst would have come first.
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["x", "y", "z"]);
    expect(notifications).toBe(1);
    registry.unregister("y");
    await vi.waitFor(() => expect(notifications).toBe(2));
  });

  it("forwards progress to a caller that sent a progressToken", async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: "slow",
        description: "reports progress",
        inputSchema: { type: "object", properties: {} },
        handler: (_args, { reportProgress }) => {
          for (let i = 1; i <= 3; i++) reportProgress(i, 3, `step ${i}`);
          return "done";
        },
      }),
    );
    const client = await connect(registry);
    const updates: Array<{ progress: number; total?: number; message?: string }> = [];
    const result = await client.callTool({ name: "slow", arguments: {} }, CallToolResultSchema, {
      onprogress: (p) => updates.push(p),
    });
    expect(result.content).toEqual([{ type: "text", text: "done" }]);
    expect(updates.map((u) => [u.progress, u.total, u.message])).toEqual([
      [1, 3, "step 1"],
      [2, 3, "step 2"],
      [3, 3, "step 3"],
    ]);
  });

  it("aborts the tool's signal when the caller cancels the request", async () => {
    const registry = new ToolRegistry();
    let started = false;
    let aborted: (reason: unknown) => void = () => {};
    const abortedPromise = new Promise((resolve) => {
      aborted = resolve;
    });
    registry.register(
      defineTool({
        name: "hang",
        description: "waits until cancelled",
        inputSchema: { type: "object", properties: {} },
        handler: (_args, { signal }) =>
          new Promise((_resolve, reject) => {
            started = true;
            signal.addEventListener("abort", () => {
              aborted(signal.reason);
              reject(new Error("stopped"));
            });
          }),
      }),
    );
    const client = await connect(registry);
    const controller = new AbortController();
    const call = client.callTool({ name: "hang", arguments: {} }, CallToolResultSchema, {
      signal: controller.signal,
    });
    await vi.waitFor(() => expect(started).toBe(true)); // the call reached the tool
    controller.abort("user pressed stop");
    await expect(call).rejects.toThrow();
    await expect(abortedPromise).resolves.toBeDefined();
  });

  it("lets tools log to the client, filtered by the level the client set", async () => {
    const registry = new ToolRegistry();
    registry.register(
      defineTool({
        name: "chatty",
        description: "logs at two levels",
        inputSchema: { type: "object", properties: {} },
        handler: async () => {
          await currentMcpRequest()?.log("debug", "fine detail");
          await currentMcpRequest()?.log("warning", "something odd");
          return "ok";
        },
      }),
    );
    const client = await connect(registry);
    const messages: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      messages.push(n.params.data);
    });
    await client.setLoggingLevel("info");
    await client.callTool({ name: "chatty", arguments: {} });
    expect(messages).toEqual(["something odd"]);
  });
});
