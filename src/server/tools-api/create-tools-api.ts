import { Hono } from "hono";
import { CallGate } from "../../tools/call-gate.js";
import { callToolRoute } from "./call-tool-route.js";
import { getToolRoute } from "./get-tool-route.js";
import { listMcpServersRoute } from "./list-mcp-servers-route.js";
import { listToolsRoute } from "./list-tools-route.js";
import { patchToolRoute } from "./patch-tool-route.js";
import { restartMcpServerRoute } from "./restart-mcp-server-route.js";
import type { ToolsApiContext, ToolsApiOptions } from "./tools-api-context.js";

export type { ToolsApiOptions } from "./tools-api-context.js";

/**
 * The Tools API under /api: list tools with their source, policy and on/off state; call one through the executor
 * (validation, timeout, redaction, as everywhere); change a tool's settings; see and restart mounted MCP servers.
 * One file per route; what a route throws is written by the app's error handler (errorResponse).
 */
export function createToolsApi(options: ToolsApiOptions): Hono {
  const context: ToolsApiContext = {
    ...options,
    gate: options.gate ?? new CallGate(options.registry, options.settings.approval),
  };
  return new Hono()
    .get("/tools", listToolsRoute(context))
    .get("/tools/:name", getToolRoute(context))
    .post("/tools/:name/call", callToolRoute(context))
    .patch("/tools/:name", patchToolRoute(context))
    .get("/mcp-servers", listMcpServersRoute(context))
    .post("/mcp-servers/:name/restart", restartMcpServerRoute(context));
}
