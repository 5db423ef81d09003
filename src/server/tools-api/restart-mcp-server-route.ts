import type { Context } from "hono";
import { notFound } from "../http-error.js";
import type { ToolsApiContext } from "./tools-api-context.js";

/** `POST /api/mcp-servers/{name}/restart`: answers once the server is back (or failed to come back). */
export function restartMcpServerRoute(context: ToolsApiContext) {
  return async (c: Context) => {
    const name = c.req.param("name") as string;
    const mounted = context.mcpServers;
    const status = mounted?.status().find((entry) => entry.name === name);
    if (!mounted || !status) {
      const names = mounted?.status().map((entry) => entry.name) ?? [];
      throw notFound(
        `No mounted MCP server named "${name}"; mounted: ${names.join(", ") || "none"}.`,
        "mcp_server_not_found",
      );
    }
    await mounted.restart(name);
    const after = mounted.status().find((entry) => entry.name === name);
    return c.json({
      name,
      state: after?.state ?? "stopped",
      toolCount: after?.toolCount ?? 0,
      lastError: after?.lastError ?? null,
    });
  };
}
