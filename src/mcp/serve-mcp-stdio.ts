import { randomUUID } from "node:crypto";
import { PassThrough, type Readable, type Writable } from "node:stream";
import type {
  JSONRPCMessage,
  MessageExtraInfo,
  Server,
  Transport,
  TransportSendOptions,
} from "@modelcontextprotocol/server";
import { StdioServerTransport, serveStdio } from "@modelcontextprotocol/server/stdio";
import { createMcpServer, followRegistryChanges, type McpServerOptions } from "./create-mcp-server.js";
import { McpApprovals } from "./mcp-approvals.js";
import { duplicateIdError, toolCallArgumentsError } from "./request-guards.js";

export interface StdioMcpServerOptions extends McpServerOptions {
  /** Default process.stdin. */
  stdin?: Readable;
  /** Default process.stdout. Nothing else may write to it: every byte there must be MCP. */
  stdout?: Writable;
  /** After stdin ends, how long requests already received may still take to be answered. Default 30 s. */
  drainMs?: number;
}

export interface StdioMcpServer {
  /** Settles when the client hangs up (stdin ends, answers sent) or `close()` is called. */
  closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * The stdio wire with a memory of which requests are still unanswered, so that stdin's end (a client that sends
 * its last call and closes the pipe) waits for their answers instead of dropping them.
 */
class DrainingTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  readonly #inner: StdioServerTransport;
  readonly #pending = new Set<string | number>();
  #drained: (() => void) | undefined;

  constructor(inner: StdioServerTransport) {
    this.#inner = inner;
    inner.onmessage = (message: JSONRPCMessage) => {
      if ("method" in message && "id" in message && message.id !== undefined) {
        const refusal = this.#pending.has(message.id)
          ? duplicateIdError(message.id)
          : toolCallArgumentsError(message);
        if (refusal) {
          void inner.send(refusal).catch((error: Error) => this.onerror?.(error));
          return;
        }
        this.#pending.add(message.id);
      }
      this.onmessage?.(message);
    };
    inner.onclose = () => this.onclose?.();
    inner.onerror = (error) => this.onerror?.(error);
  }

  start() {
    return this.#inner.start();
  }

  async send(message: JSONRPCMessage, _options?: TransportSendOptions) {
    await this.#inner.send(message);
    if (("result" in message || "error" in message) && message.id !== undefined && message.id !== null) {
      this.#pending.delete(message.id);
      if (this.#pending.size === 0) this.#drained?.();
    }
  }

  close() {
    return this.#inner.close();
  }

  /** Resolves once every request received so far has its answer, or after `ms`. */
  drain(ms: number): Promise<void> {
    if (this.#pending.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      timer.unref();
      this.#drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** Serve a registry over stdio, as `toolbridge mcp` does: 2026-07-28 clients and 2025 clients (`initialize`) alike. */
export async function serveMcpOverStdio(options: StdioMcpServerOptions): Promise<StdioMcpServer> {
  const stdin = options.stdin ?? process.stdin;
  // The SDK transport reads from a pipe we end ourselves: stdin's EOF must not cut off calls still running.
  const input = new PassThrough();
  stdin.pipe(input, { end: false });
  const wire = new DrainingTransport(new StdioServerTransport(input, options.stdout ?? process.stdout));
  const servers = new Set<Server>();
  // One stdio connection is one client: its calls share one caller, whatever name it states or era it speaks.
  const caller = `stdio:${randomUUID()}`;
  const shared = {
    ...options,
    approvals: options.approvals ?? new McpApprovals(),
    userId: options.userId ?? (() => caller),
  };
  const unsubscribe = followRegistryChanges(options.registry, () => {
    for (const server of servers) void server.sendToolListChanged().catch(() => {});
  });

  let resolveClosed!: () => void;
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  const handle = serveStdio(
    ({ era }) => {
      const server = createMcpServer(shared, era);
      servers.add(server);
      const previous = server.onclose;
      server.onclose = () => {
        servers.delete(server);
        previous?.();
      };
      return server;
    },
    { transport: wire },
  );

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      stdin.off("end", hangUp);
      stdin.off("close", hangUp);
      stdin.unpipe(input);
      unsubscribe();
      await handle.close().catch(() => {});
      resolveClosed();
    })();
    return closing;
  };
  // The client hung up: answer what it already asked, then end (the spec: servers SHOULD exit on stdin EOF).
  const hangUp = () => {
    void wire.drain(options.drainMs ?? 30_000).then(close);
  };
  stdin.once("end", hangUp);
  stdin.once("close", hangUp);
  return { closed, close };
}
