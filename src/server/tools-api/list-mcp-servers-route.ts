import type { Context } from "hono";
import type { ToolsApiContext } from "./tools-api-context.js";

/** `GET /api/mcp-servers`: each mounted server's state, transport, tools, last error and stderr tail. */
export function listMcpServersRoute(context: ToolsApiContext) {
  return (c: Context) =>
    c.json({
      servers: (context.mcpServers?.status() ?? []).map((status) => ({
        name: status.name,
        state: status.state,
        transport: status.transport,
        toolCount: status.toolCount,
        tools: status.tools,
        lastError: status.lastError ?? null,
        stderrTail: status.stderrTail ?? [],
        restarts: status.restarts,
        ...(status.pid ? { pid: status.pid } : {}),
        ...(status.era ? { era: status.era } : {}),
      })),
    });
}
