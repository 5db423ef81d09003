import type { Readable, Writable } from "node:stream";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { createMcpServer, type McpServerOptions } from "./create-mcp-server.js";

export interface StdioMcpServerOptions extends McpServerOptions {
  /** Default process.stdin. */
  stdin?: Readable;
  /** Default process.stdout. Nothing else may write to it: every byte there must be MCP. */
  stdout?: Writable;
}

export interface StdioMcpServer {
  server: Server;
  /** Settles when the client hangs up (stdin ends) or `close()` is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/** Serve a registry over stdio, as `toolbridge mcp` does. */
export async function serveMcpOverStdio(options: StdioMcpServerOptions): Promise<StdioMcpServer> {
  const stdin = options.stdin ?? process.stdin;
  const server = createMcpServer(options);
  const transport = new StdioServerTransport(stdin, options.stdout ?? process.stdout);
  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const onClose = server.onclose;
  server.onclose = () => {
    onClose?.();
    resolveClosed();
  };
  // The SDK transport does not notice a client that goes away; without this the process would linger forever.
  const hangUp = () => void server.close().catch(() => {});
  stdin.once("end", hangUp);
  stdin.once("close", hangUp);
  await server.connect(transport);
  return {
    server,
    closed,
    async close() {
      stdin.off("end", hangUp);
      stdin.off("close", hangUp);
      await server.close();
    },
  };
}
