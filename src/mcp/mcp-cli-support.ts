import type { McpMountLogger, McpServerStatus } from "./mcp-server-connection.js";

/** A logger for long-running commands: one line per event on stderr (stdout may belong to the MCP protocol). */
export function stderrMountLogger(verbose: boolean): McpMountLogger {
  const write = (line: string) => process.stderr.write(`toolbridge: ${line}\n`);
  return {
    ...(verbose ? { debug: write } : {}),
    info: write,
    warn: write,
    error: write,
  };
}

/** One human line about a server, for status displays. */
export function describeMcpServerStatus(status: McpServerStatus): string {
  const tools = status.state === "ready" ? `, ${status.toolCount} tool(s)` : "";
  const pid = status.pid ? `, pid ${status.pid}` : "";
  const era = status.era ? `, protocol ${status.era === "modern" ? "2026-07-28" : "2025"}` : "";
  return `MCP server "${status.name}" (${status.transport}): ${status.state}${tools}${era}${pid}`;
}
