import type { Command } from "commander";
import { mcpApprovalsFromConfig } from "../../mcp/mcp-approvals.js";
import { describeMcpServerStatus, stderrMountLogger } from "../../mcp/mcp-cli-support.js";
import { serveMcpOverStdio } from "../../mcp/serve-mcp-stdio.js";
import { runCommand } from "../cli-error.js";
import { mcpApprovalStoreSource } from "../open-store.js";
import { loadToolsModule } from "../tools-module.js";
import { createToolsRuntime } from "../tools-runtime.js";

interface McpCommandOptions {
  config?: string;
  db?: string;
  toolsModule?: string;
  verbose?: boolean;
}

export function registerMcpCommand(program: Command): void {
  program
    .command("mcp")
    .description(
      "serve the tools as an MCP server over stdin/stdout (for Claude Desktop, Cursor, MCP Inspector…)",
    )
    .option("-c, --config <file>", "config file (default: ./toolbridge.config.json when present)")
    .option(
      "--db <file>",
      "database for the memory tools and the MCP approval state, shared by instances (default: the user's data folder)",
    )
    .option("--tools-module <file>", "an ES module exporting more tools (`tools` array or default function)")
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
          if (options.toolsModule) runtime.registry.registerAll(await loadToolsModule(options.toolsModule));
          for (const status of runtime.mcpServers.status()) {
            if (status.state !== "ready") logger.warn?.(describeMcpServerStatus(status));
          }
          // The settings made through `serve` (switched-off tools hidden, policies), followed while this runs: a
          // change made there reaches this client as `notifications/tools/list_changed`.
          const settings = await runtime.withToolSettings({ follow: true });
          // Approvals: single-use state and the signing key live in the database, so restarts keep refusing replays.
          // An SQLite file is opened when a gated tool is first asked for or settings are there to read: serving only
          // ungated tools creates no database.
          const approvals = mcpApprovalsFromConfig(
            { ...runtime.config.mcp, approvals: settings.approval },
            await mcpApprovalStoreSource(runtime.database),
          );
          const served = await serveMcpOverStdio({
            registry: runtime.registry,
            executor: runtime.executor,
            approvals,
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
