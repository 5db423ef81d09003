import { existsSync } from "node:fs";
import type { Command } from "commander";
import type { LanguageModel } from "../../core/language-model.js";
import { mcpApprovalsFromConfig } from "../../mcp/mcp-approvals.js";
import { describeMcpServerStatus, stderrMountLogger } from "../../mcp/mcp-cli-support.js";
import { RunService } from "../../server/runs-api/run-service.js";
import { ServerConfigError, startServer } from "../../server/start-server.js";
import { McpApprovalLedger } from "../../store/mcp-approval-ledger.js";
import { SqliteConversationEraser } from "../../store/sqlite-conversation-eraser.js";
import { SqliteRunEventLog } from "../../store/sqlite-run-event-log.js";
import type { SqliteStore } from "../../store/sqlite-store.js";
import { CliError, runCommand } from "../cli-error.js";
import { createCliModel } from "../create-cli-model.js";
import { defaultModelSettings } from "../default-model.js";
import { requireModelSettings, resolveModelSettings } from "../model-options.js";
import { openStore, resolveDbPath } from "../open-store.js";
import type { Runtime } from "../runtime.js";
import { createToolsRuntime } from "../tools-runtime.js";

interface ServeOptions {
  port: string;
  host: string;
  token?: string;
  config?: string;
  db?: string;
  allowedOrigin?: string[];
  allowedHost?: string[];
  maxBodyBytes?: string;
  verbose?: boolean;
}

function parseInteger(text: string, option: string, min: number, max: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new CliError(`${option} must be a whole number from ${min} to ${max}, got "${text}".`);
  }
  return value;
}

export function registerServeCommand(program: Command): void {
  program
    .command("serve")
    .description("run the HTTP server: MCP (Streamable HTTP) at /mcp")
    .option("-p, --port <n>", "port to listen on (0 picks a free one)", "8080")
    .option("-H, --host <address>", "address to bind; anything but loopback requires --token", "127.0.0.1")
    .option("--token <secret>", "require Authorization: Bearer <secret> (default: $TOOLBRIDGE_TOKEN)")
    .option("--allowed-origin <origin...>", "browser origins allowed besides the server's own")
    .option("--allowed-host <name...>", "Host header names allowed besides localhost (e.g. behind a proxy)")
    .option("--max-body-bytes <n>", "largest request body accepted (default 4 MiB)")
    .option("-c, --config <file>", "config file (default: ./toolbridge.config.json when present)")
    .option(
      "--db <file>",
      "database for the memory tools and the MCP approval state, shared by instances (default: the user's data folder)",
    )
    .option("--verbose", "also log the stderr of mounted MCP servers")
    .action((options: ServeOptions) =>
      runCommand(async () => {
        const port = parseInteger(options.port, "--port", 0, 65535);
        const maxBodyBytes =
          options.maxBodyBytes === undefined
            ? undefined
            : parseInteger(options.maxBodyBytes, "--max-body-bytes", 1, 1024 * 1024 * 1024);
        const token = options.token ?? process.env.TOOLBRIDGE_TOKEN ?? undefined;
        const logger = stderrMountLogger(options.verbose === true);
        // The memory tools too, as `tools list` and `run` offer them; their database opens at the first call.
        const runtime = await createToolsRuntime({
          db: options.db,
          ...(options.config ? { configPath: options.config } : {}),
          mcpLogger: logger,
        });
        // Approvals: single-use state and the signing key live in the database, shared by every instance on it;
        // opened when a gated tool is first asked for.
        let store: SqliteStore | undefined;
        let runs: RunService | undefined;
        try {
          const approvals = mcpApprovalsFromConfig(runtime.config.mcp, () => {
            store ??= openStore(options.db);
            return new McpApprovalLedger(store.db);
          });
          // Runs API and WebSocket (/api/runs, /api/conversations, /ws), when a model is configured (or bundled).
          runs = createServeRuns(runtime, () => (store ??= openStore(options.db)));
          const server = await startServer({
            ...(runs ? { runs: { service: runs } } : {}),
            mcp: { approvals },
            registry: runtime.registry,
            executor: runtime.executor,
            port,
            host: options.host,
            ...(token ? { token } : {}),
            ...(options.allowedOrigin ? { allowedOrigins: options.allowedOrigin } : {}),
            ...(options.allowedHost ? { allowedHosts: options.allowedHost } : {}),
            ...(maxBodyBytes ? { maxBodyBytes } : {}),
          }).catch((error: unknown) => {
            if (error instanceof ServerConfigError) throw new CliError(error.message, 2);
            throw error;
          });
          // Runs a dead process left running are resumed; a database that does not exist yet has none.
          if (runs && existsSync(resolveDbPath(options.db))) await runs.recover();
          for (const status of runtime.mcpServers.status()) logger.info?.(describeMcpServerStatus(status));
          process.stdout.write(
            `toolbridge serving ${runtime.registry.size} tool(s) on ${server.url} — MCP endpoint ${server.url}/mcp\n`,
          );
          if (runs) {
            const ws = `${server.url.replace(/^http/, "ws")}/ws`;
            process.stdout.write(`Runs API ${server.url}/api/runs — WebSocket ${ws}\n`);
          }
          await new Promise<void>((resolve) => {
            process.once("SIGINT", resolve);
            process.once("SIGTERM", resolve);
          });
          await server.close();
          return 0;
        } finally {
          await runs?.close();
          await store?.close();
          await runtime.close();
        }
      }),
    );
}

/**
 * The run service of `serve`: the configured model (else the bundled one) as "default", loaded at the first run; runs
 * and their event log in the database, opened at the first run (or by `recover()`). Undefined when no model is
 * configured: the Runs API is then off.
 */
function createServeRuns(runtime: Runtime, openDb: () => SqliteStore): RunService | undefined {
  const input = { flags: {}, config: runtime.config.model, configFile: runtime.configFile };
  let settings = resolveModelSettings(input);
  const bundled = settings ? undefined : defaultModelSettings();
  if (bundled) settings = requireModelSettings(input, "serve", () => bundled);
  if (!settings) return undefined;
  const modelSettings = settings;
  let model: Promise<LanguageModel> | undefined;
  const load = () =>
    createCliModel(modelSettings).then(
      (loaded) => loaded.model,
      (error: unknown) => {
        model = undefined; // asked again at the next run
        throw error;
      },
    );
  let parts: { store: SqliteStore; events: SqliteRunEventLog; eraser: SqliteConversationEraser } | undefined;
  const open = () => {
    if (!parts) {
      const store = openDb();
      parts = {
        store,
        events: new SqliteRunEventLog(store.db),
        eraser: new SqliteConversationEraser(store.db),
      };
    }
    return parts;
  };
  const service = new RunService({
    models: { names: () => ["default"], defaultName: "default", get: () => (model ??= load()) },
    store: lazily(() => open().store),
    events: lazily(() => open().events),
    conversations: lazily(() => open().eraser),
    executor: runtime.executor,
  });
  return service;
}

/** An object whose methods open `target()` at their first call: listing tools must not create a database. */
function lazily<T extends object>(target: () => T): T {
  return new Proxy({} as T, {
    get(_empty, key) {
      const object = target();
      const value = Reflect.get(object, key, object);
      return typeof value === "function" ? value.bind(object) : value;
    },
  });
}
