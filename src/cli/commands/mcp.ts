import type { Command } from "commander";
import { describeMcpServerStatus, stderrMountLogger } from "../../mcp/mcp-cli-support.js";
import { serveMcpOverStdio } from "../../mcp/serve-mcp-stdio.js";
import { runCommand } from "../cli-error.js";
import { createToolsRuntime } from "../tools-runtime.js";

interface McpCommandOptions {
  config?: string;
  db?: string;
  verbose?: boolean;
}

export function registerMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description(
      "serve the tools as an MCP server over stdin/stdout (for Claude Desktop, Cursor, MCP Inspector…)",
    )
    .option("-c, --config <file>", "config file (default: ./toolbridge.config.json when present)")
    .option("--db <file>", "database for the memory tools (default: the user data folder)")
    .option("--verbose", "also log the stderr of mounted MCP servers (to stderr)")
    .action((options: McpCommandOptions) =>
      runCommand(async () => {
        // stdout is the protocol channel from here on: every message for people goes to stderr.
        const logger = stderrMountLogger(options.verbose === true);
        // The memory tools too, as `tools list` and `run` offer them; their database opens at the first call.
        const runtime = await createToolsRuntime({
          db: options.db,
          ...(options.config ? { configPath: options.config } : {}),
          mcpLogger: logger,
        });
        try {
          for (const status of runtime.mcpServers.status()) {
            if (status.state !== "ready") logger.warn?.(describeMcpServerStatus(status));
          }
          const served = await serveMcpOverStdio({
            registry: runtime.registry,
            executor: runtime.executor,
          });
          const stop = () => void served.close();
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
          await served.closed;
          return 0;
        } finally {
          await runtime.close();
        }
      }),
    );
}
