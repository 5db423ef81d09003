import { z } from "zod";

const optionalFlags = {
  /** Keep the entry in the file but do not start it (as several desktop clients do). */
  disabled: z.boolean().optional(),
  /** Time allowed for connecting and for each tool call before it is abandoned. */
  timeoutMs: z.number().int().positive().optional(),
};

/**
 * A server started as a child process and spoken to over stdin/stdout. `type` is optional: desktop clients write
 * `"stdio"` or leave it out.
 */
export const mcpStdioServerSchema = z.looseObject({
  type: z.literal("stdio").optional(),
  command: z.string().min(1, 'command must name the program to run, e.g. "node" or "npx"'),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().min(1).optional(),
  ...optionalFlags,
});

/** A server reached over the network: Streamable HTTP by default, the legacy HTTP+SSE transport with `"type": "sse"`. */
export const mcpRemoteServerSchema = z.looseObject({
  type: z.enum(["http", "streamable-http", "streamableHttp", "sse"]).optional(),
  url: z.url({ protocol: /^https?$/, error: "url must be an http:// or https:// address" }),
  headers: z.record(z.string(), z.string()).optional(),
  ...optionalFlags,
});

export const mcpServerConfigSchema = z.union([mcpStdioServerSchema, mcpRemoteServerSchema], {
  error:
    'each server needs either "command" (a program started over stdio) or "url" (a Streamable HTTP endpoint)',
});

/**
 * The `mcpServers` object exactly as MCP desktop clients keep it:
 * `{"name": {"command", "args"?, "env"?, "cwd"?} | {"url", "headers"?}}`. Unknown keys inside an entry are kept and
 * ignored, so a file copied from another client loads unchanged.
 */
export const mcpServersSchema = z.record(
  z.string().min(1, "a server name must not be empty").max(64, "server names are at most 64 characters"),
  mcpServerConfigSchema,
);

export type McpStdioServerConfig = z.output<typeof mcpStdioServerSchema>;
export type McpRemoteServerConfig = z.output<typeof mcpRemoteServerSchema>;
export type McpServerConfig = z.output<typeof mcpServerConfigSchema>;
export type McpServersConfig = z.output<typeof mcpServersSchema>;

export function isStdioServerConfig(config: McpServerConfig): config is McpStdioServerConfig {
  return "command" in config && typeof config.command === "string";
}
