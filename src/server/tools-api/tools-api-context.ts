import type { Context } from "hono";
import type { MountedMcpServers } from "../../mcp/mount-mcp-servers.js";
import type { CallGate } from "../../tools/call-gate.js";
import type { ToolExecutor } from "../../tools/tool-executor.js";
import type { ToolRegistry } from "../../tools/tool-registry.js";
import type { ToolSettings } from "./tool-settings.js";

export interface ToolsApiOptions {
  registry: ToolRegistry;
  executor: ToolExecutor;
  settings: ToolSettings;
  /** The mounted MCP servers, for sources and `/api/mcp-servers`. */
  mcpServers?: MountedMcpServers | undefined;
  /** Names of toolbridge's own tools (built-ins, memory): their source is "builtin". */
  builtinTools?: ReadonlySet<string> | undefined;
  /** Decides whether a call runs (as on every surface). Default: one over `registry` with `settings.approval`. */
  gate?: CallGate | undefined;
  /** Who a request's calls are made for (fair shares, cooldowns, rate limits); see callerIdentity. */
  callerOf?: ((c: Context) => string) | undefined;
}

/** What every route of the Tools API is given: its options, with the gate made. */
export type ToolsApiContext = ToolsApiOptions & { gate: CallGate };
