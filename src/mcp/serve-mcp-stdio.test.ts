import { PassThrough } from "node:stream";
import { Client, type JSONRPCMessage, type Transport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { waitFor } from "../../test/helpers/wait-for.js";
import { defineTool } from "../tools/define-tool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { ToolRegistry } from "../tools/tool-registry.js";
import { serveMcpOverStdio } from "./serve-mcp-stdio.js";

/** The client end of an in-process stdio pipe: newline-delimited JSON-RPC, as a spawned server would see it. */
class PipeTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #buffer = "";
  constructor(
    readonly toServer: PassThrough,
    readonly fromServer: PassThrough,
  ) {}
  async start() {
    this.fromServer.on("data", (chunk: Buffer) => {
      this.#buffer += chunk.toString();
      let newline = this.#buffer.indexOf("\n");
      while (newline >= 0) {
        const line = this.#buffer.slice(0, newline).trim();
        this.#buffer = this.#buffer.slice(newline + 1);
        if (line) this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
        newline = this.#buffer.indexOf("\n");
      }
    });
  }
  async send(message: JSONRPCMessage) {
    this.toServer.write(`${JSON.stringify(message)}\n`);
  }
  async close() {
    this.toServer.end();
    this.onclose?.();
  }
}

const tool = (name: string) =>
  defineTool({ name, description: name, inputSchema: { type: "object" }, handler: () => name });

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (closers.length) await closers.pop()?.();
});

async function connect(registry: ToolRegistry, mode: "legacy" | { pin: string }) {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const served = await serveMcpOverStdio({ registry, executor: new ToolExecutor(registry), stdin, stdout });
  const client = new Client({ name: "pipe", version: "1" }, { versionNegotiation: { mode } });
  await client.connect(new PipeTransport(stdin, stdout));
  closers.push(async () => {
    await client.close();
    await served.close();
  });
  return client;
}

describe("serveMcpOverStdio", () => {
  for (const mode of ["legacy", { pin: "2026-07-28" }] as const) {
    const era = mode === "legacy" ? "2025" : "2026";
    it(`${era}: lists and calls tools, and tells the client when the tool list changes`, async () => {
      const registry = new ToolRegistry();
      registry.register(tool("first"));
      const client = await connect(registry, mode);
      expect(client.getProtocolEra()).toBe(mode === "legacy" ? "legacy" : "modern");
      let heard = 0;
      client.setNotificationHandler("notifications/tools/list_changed", () => {
        heard++;
      });
      // 2026 clients hear list_changed only on a stream they opened for it; 2025 clients always do.
      if (mode !== "legacy") await client.listen({ toolsListChanged: true });
      expect(JSON.stringify(await client.callTool({ name: "first", arguments: {} }))).toContain("first");
      registry.register(tool("second"));
      await waitFor("list_changed", () => heard > 0, 5000);
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(["first", "second"]);
    });
  }
});
