import type { Implementation } from "@modelcontextprotocol/server";
import { ToolbridgeError } from "../core/toolbridge-error.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import {
  type McpEraVerdictStore,
  type McpMountLogger,
  McpServerConnection,
  type McpServerStatus,
  type RestartPolicy,
} from "./mcp-server-connection.js";
import { type McpServersConfig, mcpServersSchema } from "./mcp-servers-config.js";

export interface MountMcpServersOptions {
  /** Called on every state change of any server (connecting, ready, restarting, error, stopped, tool list changes). */
  onStatus?: (status: McpServerStatus) => void;
  /** Where server stderr lines (debug), readiness (info) and failures (warn/error) go. Default: nowhere. */
  logger?: McpMountLogger;
  /** How toolbridge introduces itself to the servers. */
  clientInfo?: Implementation;
  restart?: RestartPolicy;
  /** Connect and call timeout for servers whose config sets no timeoutMs. Default 30 s. */
  defaultTimeoutMs?: number;
  /** Where each server's protocol era is remembered (see fileEraVerdictStore). Default: this process only. */
  eraVerdicts?: McpEraVerdictStore;
}

export interface MountedMcpServers {
  /** One entry per configured, enabled server, in config order. */
  status(): McpServerStatus[];
  /** Subscribe to status changes; returns unsubscribe. */
  onChange(listener: (status: McpServerStatus) => void): () => void;
  /** Stop and start one server again. */
  restart(name: string): Promise<void>;
  /** Stop every server (child processes end) and take their tools out of the registry. */
  close(): Promise<void>;
}

export class McpServersConfigError extends ToolbridgeError {
  override name = "McpServersConfigError";
}

/** Validate an `mcpServers` object from anywhere (config file, API); errors name the server and the field. */
export function parseMcpServersConfig(raw: unknown, source = "mcpServers"): McpServersConfig {
  const parsed = mcpServersSchema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const lines = parsed.error.issues.map(
    (issue) => `- ${[source, ...issue.path.map(String)].join(".")}: ${issue.message}`,
  );
  throw new McpServersConfigError(`Invalid MCP server configuration:\n${lines.join("\n")}`);
}

/**
 * Mount the servers of an `mcpServers` config into a registry. Resolves once every server has either come up (its
 * tools registered) or failed; a failure is reported through `onStatus` / `status()` and never stops the others.
 * Disabled entries are skipped.
 */
export async function mountMcpServers(
  registry: ToolRegistry,
  servers: McpServersConfig,
  options: MountMcpServersOptions = {},
): Promise<MountedMcpServers> {
  const listeners = new Set<(status: McpServerStatus) => void>();
  if (options.onStatus) listeners.add(options.onStatus);
  const emit = (status: McpServerStatus) => {
    for (const listener of listeners) {
      try {
        listener(status);
      } catch {
        // A faulty listener must not break the servers.
      }
    }
  };

  const connections = new Map<string, McpServerConnection>();
  for (const [name, config] of Object.entries(servers)) {
    if (config.disabled) continue;
    connections.set(
      name,
      new McpServerConnection(name, config, registry, {
        onStatus: emit,
        ...(options.logger ? { logger: options.logger } : {}),
        ...(options.clientInfo ? { clientInfo: options.clientInfo } : {}),
        ...(options.restart ? { restart: options.restart } : {}),
        ...(options.defaultTimeoutMs ? { defaultTimeoutMs: options.defaultTimeoutMs } : {}),
        ...(options.eraVerdicts ? { eraVerdicts: options.eraVerdicts } : {}),
      }),
    );
  }
  await Promise.all([...connections.values()].map((connection) => connection.start()));

  return {
    status: () => [...connections.values()].map((connection) => connection.status()),
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async restart(name) {
      const connection = connections.get(name);
      if (!connection) {
        throw new McpServersConfigError(
          `No mounted MCP server named "${name}"; mounted: ${[...connections.keys()].join(", ") || "none"}.`,
        );
      }
      await connection.restart();
    },
    async close() {
      await Promise.all([...connections.values()].map((connection) => connection.stop()));
      listeners.clear();
    },
  };
}
