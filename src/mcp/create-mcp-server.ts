import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type Implementation,
  ListToolsRequestSchema,
  type ListToolsResult,
  type LoggingLevel,
  LoggingLevelSchema,
  McpError,
  type ProgressNotification,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { InvalidCursorError, ToolNotFoundError } from "../tools/errors.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import { type McpRequestContext, mcpRequestStorage } from "./mcp-request-context.js";

export interface McpServerOptions {
  registry: ToolRegistry;
  /** Runs the calls; defaults to a ToolExecutor with default limits over `registry`. */
  executor?: ToolExecutor;
  /** Name and version announced in `initialize`. Defaults to toolbridge and the package version. */
  serverInfo?: Implementation;
  /** Text a client may show its model about how to use this server. */
  instructions?: string;
  /** Who the calls are made for (per-user cooldowns and rate limits). Default: the session id, or "mcp". */
  userId?: (session: { sessionId: string | undefined }) => string;
}

const LEVELS = LoggingLevelSchema.options;

function packageVersion(): string {
  try {
    const url = new URL("../../package.json", import.meta.url);
    return (JSON.parse(readFileSync(url, "utf8")) as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/**
 * An MCP server (the SDK's low-level `Server`, so that an unknown tool is the JSON-RPC error -32602 the spec asks for
 * rather than an `isError` result) that serves a ToolRegistry through a ToolExecutor. One instance serves one
 * connection: create one per stdio process or per Streamable HTTP session. Closing it unsubscribes from the registry.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { registry } = options;
  const executor = options.executor ?? new ToolExecutor(registry);
  const server = new Server(options.serverInfo ?? { name: "toolbridge", version: packageVersion() }, {
    capabilities: { tools: { listChanged: true }, logging: {} },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
  });

  // Until the client sets a level, everything is sent (the spec leaves the default to the server).
  let minimumLevel: LoggingLevel = "debug";
  server.setRequestHandler(SetLevelRequestSchema, async (request) => {
    minimumLevel = request.params.level;
    return {};
  });

  server.setRequestHandler(ListToolsRequestSchema, async (request): Promise<ListToolsResult> => {
    try {
      const cursor = request.params?.cursor;
      const page = registry.list(cursor === undefined ? {} : { cursor });
      return page.nextCursor === undefined
        ? { tools: page.tools }
        : { tools: page.tools, nextCursor: page.nextCursor };
    } catch (error) {
      if (error instanceof InvalidCursorError) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
  });

  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    if (!registry.has(name)) {
      throw new McpError(ErrorCode.InvalidParams, new ToolNotFoundError(name, registry.names()).message);
    }
    const relatedRequestId = extra.requestId;
    const context: McpRequestContext = {
      requestId: extra.requestId,
      sessionId: extra.sessionId,
      clientCapabilities: server.getClientCapabilities(),
      async log(level, data, logger) {
        if (LEVELS.indexOf(level) < LEVELS.indexOf(minimumLevel)) return;
        await extra.sendNotification({
          method: "notifications/message",
          params: logger === undefined ? { level, data } : { level, data, logger },
        });
      },
      createMessage: (params) => server.createMessage(params, { relatedRequestId, signal: extra.signal }),
      elicitInput: (params) => server.elicitInput(params, { relatedRequestId, signal: extra.signal }),
      ...(extra.closeSSEStream ? { closeSSEStream: extra.closeSSEStream } : {}),
    };

    const progressToken = extra._meta?.progressToken;
    let progressSent: Promise<void> = Promise.resolve();
    const onProgress =
      progressToken === undefined
        ? undefined
        : (update: { progress: number; total?: number; message?: string }) => {
            const notification: ProgressNotification = {
              method: "notifications/progress",
              params: { progressToken, ...update },
            };
            // A progress message that cannot be delivered (client gone) must not fail the call.
            progressSent = extra.sendNotification(notification).catch(() => {});
          };

    try {
      const outcome = await mcpRequestStorage.run(context, () =>
        executor.execute(
          { name, arguments: request.params.arguments ?? {}, callId: String(extra.requestId) },
          {
            signal: extra.signal,
            userId: options.userId?.({ sessionId: extra.sessionId }) ?? extra.sessionId ?? "mcp",
            ...(onProgress ? { onProgress } : {}),
          },
        ),
      );
      // Progress sent after the response would be dropped by the client: let the last one go out first.
      await progressSent;
      return outcome.result;
    } catch (error) {
      // The tool vanished between the check above and the call (a mounted server went away).
      if (error instanceof ToolNotFoundError) throw new McpError(ErrorCode.InvalidParams, error.message);
      throw error;
    }
  });

  // Registry changes arrive in bursts (a mounted server brings many tools at once): one notification per burst.
  let pending = false;
  const unsubscribe = registry.onChange(() => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      if (!server.transport || server.getClientCapabilities() === undefined) return;
      server.sendToolListChanged().catch(() => {});
    });
  });
  const previousOnClose = server.onclose;
  server.onclose = () => {
    unsubscribe();
    previousOnClose?.();
  };
  return server;
}
