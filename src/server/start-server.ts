import type { Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { ToolbridgeError } from "../core/toolbridge-error.js";
import { createServerApp, type ServerApp, type ServerAppOptions } from "./create-server-app.js";
import { isLoopbackHost } from "./is-loopback-host.js";

export class ServerConfigError extends ToolbridgeError {
  override name = "ServerConfigError";
}

export interface StartServerOptions extends Omit<ServerAppOptions, "bindHost"> {
  /** 0 picks a free port (see the returned `port`). Default 8080. */
  port?: number;
  /** Default 127.0.0.1. Any other (non-loopback) address needs a token. */
  host?: string;
}

export interface RunningServer extends ServerApp {
  /** Base URL, e.g. http://127.0.0.1:8080 */
  url: string;
  host: string;
  port: number;
  /** Stop listening, end MCP sessions and drop open connections. */
  close(): Promise<void>;
}

function urlHost(host: string): string {
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

/** Start `toolbridge serve`'s HTTP server. Resolves once it is listening. */
export async function startServer(options: StartServerOptions): Promise<RunningServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? 8080;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ServerConfigError(`Port must be an integer from 0 to 65535, got ${port}.`);
  }
  if (!isLoopbackHost(host) && !options.token) {
    throw new ServerConfigError(
      `Refusing to listen on ${host} without a token: anyone on the network could run tools. ` +
        "Pass --token <secret> (or set TOOLBRIDGE_TOKEN), or bind to 127.0.0.1.",
    );
  }
  const serverApp = createServerApp({ ...options, bindHost: host });
  const httpServer = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const server = serve({ fetch: serverApp.app.fetch, port, hostname: host }, () => resolve(server));
    server.once("error", (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new ServerConfigError(`Port ${port} on ${host} is already in use; pick another with --port.`)
          : error,
      );
    });
  });
  serverApp.injectWebSocket?.(httpServer as HttpServer);
  const address = httpServer.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    ...serverApp,
    host,
    port: address.port,
    url: `http://${urlHost(host)}:${address.port}`,
    close() {
      closing ??= (async () => {
        await serverApp.close();
        await new Promise<void>((resolve) => {
          httpServer.close(() => resolve());
          // Open SSE streams would otherwise keep close() waiting forever.
          if ("closeAllConnections" in httpServer) httpServer.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
