import type { CallToolRequest } from "@modelcontextprotocol/server";
import type { ToolCall } from "../types.js";

export type McpCallParams = CallToolRequest["params"];

/** A parsed call as MCP `tools/call` params. */
export function toolCallToMcpParams(call: ToolCall): McpCallParams {
  return { name: call.name, arguments: call.arguments };
}

/** MCP `tools/call` params as a call (MCP requests carry no call id; pass the one you track). */
export function mcpParamsToToolCall(params: McpCallParams, id: string): ToolCall {
  return { id, name: params.name, arguments: { ...(params.arguments ?? {}) } };
}
