import type { MountedMcpServers } from "../../mcp/mount-mcp-servers.js";
import type { AnyToolDefinition } from "../../tools/tool-definition.js";

/** Where a tool comes from: toolbridge's own tools, the deployment's tools module, or a mounted MCP server. */
export type ToolSource = { type: "builtin" } | { type: "config" } | { type: "mcp"; server: string };

/**
 * A tool's source: a mounted server when one has it mounted (or its category names one), built-in when its name is
 * among toolbridge's own tools, else the deployment's (`--tools-module`, or tools a library user registered).
 */
export function toolSourceOf(
  definition: AnyToolDefinition,
  context: { builtinTools?: ReadonlySet<string> | undefined; mcpServers?: MountedMcpServers | undefined },
): ToolSource {
  const name = definition.tool.name;
  const server = context.mcpServers?.status().find((status) => status.tools.includes(name));
  if (server) return { type: "mcp", server: server.name };
  if (definition.category.startsWith("mcp:")) return { type: "mcp", server: definition.category.slice(4) };
  if (context.builtinTools?.has(name)) return { type: "builtin" };
  return { type: "config" };
}
