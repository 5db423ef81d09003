import type { Command } from "commander";
import { mcpApprovalsFromConfig } from "../../mcp/mcp-approvals.js";
import { describeMcpServerStatus, stderrMountLogger } from "../../mcp/mcp-cli-support.js";
import type { ModelCatalog } from "../../server/model-catalog.js";
import { listPendingApprovals } from "../../server/runs-api/pending-approvals.js";
import { RunService } from "../../server/runs-api/run-service.js";
import { describeServedRoutes } from "../../server/served-routes.js";
import { ServerConfigError, startServer } from "../../server/start-server.js";
import type { ApprovalPolicyConfig } from "../../tools/approval-policy.js";
import { CliError, runCommand } from "../cli-error.js";
import { addModelOptions, type ModelFlags } from "../model-options.js";
import { type LazyDatabase, mcpApprovalStoreSource } from "../open-store.js";
import type { Runtime } from "../runtime.js";
import { serveModelCatalog } from "../serve-models.js";
import { loadToolsModule } from "../tools-module.js";
import { createToolsRuntime } from "../tools-runtime.js";

interface ServeOptions extends ModelFlags {
  port: string;
  host: string;
  token?: string;
  config?: string;
  db?: string;
  allowedOrigin?: string[];
  allowedHost?: string[];
  corsOrigin?: string[];
  toolsModule?: string;
  maxBodyBytes?: string;
  secureCookie?: boolean;
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
  const command = program
    .command("serve")
    .description(
      "run the HTTP server: REST API at /api, OpenAI- and Anthropic-compatible API at /v1 (GET /v1/models, POST " +
        "/v1/chat/completions, /v1/responses and /v1/messages, with tools) over the configured models (else the bundled " +
        "demo model), MCP (Streamable HTTP) at /mcp",
    )
    .option("-p, --port <n>", "port to listen on (0 picks a free one)", "8080")
    .option("-H, --host <address>", "address to bind; anything but loopback requires --token", "127.0.0.1")
    .option(
      "--token <secret>",
      "require Authorization: Bearer <secret>, or x-api-key: <secret> on /v1/messages (default: $TOOLBRIDGE_TOKEN)",
    )
    .option("--allowed-origin <origin...>", "browser origins allowed besides the server's own")
    .option("--allowed-host <name...>", "Host header names allowed besides localhost (e.g. behind a proxy)")
    .option(
      "--cors-origin <origin...>",
      "browser origins (scheme://host:port) that may call the server cross-origin, with credentials",
    )
    .option("--tools-module <file>", "an ES module exporting more tools (`tools` array or default function)")
    .option("--max-body-bytes <n>", "largest request body accepted (default 4 MiB)")
    .option(
      "--secure-cookie",
      "mark the browser's session cookie Secure, for a server reached over HTTPS through a TLS proxy (config: server.secureCookie)",
    )
    .option("-c, --config <file>", "config file (default: ./toolbridge.config.json when present)")
    .option(
      "--db <file|url>",
      "database of runs, memory, tool settings and MCP approval state: an SQLite file, or a postgres:// URL that several instances share (default: $TOOLBRIDGE_DB_URL, the config's db, else the user's data folder)",
    )
    .option("--verbose", "also log the stderr of mounted MCP servers");
  // The default model at /v1 and for runs, chosen as `run` and `chat` choose theirs.
  addModelOptions(command)
    .addHelpText(
      "after",
      `\nServed at http://<host>:<port> (every route behind the Host/Origin checks and, with --token, the token):\n${describeServedRoutes("http://<host>:<port>")}\n`,
    )
    .action((options: ServeOptions) =>
      runCommand(async () => {
        const port = parseInteger(options.port, "--port", 0, 65535);
        const maxBodyBytes =
          options.maxBodyBytes === undefined
            ? undefined
            : parseInteger(options.maxBodyBytes, "--max-body-bytes", 1, 1024 * 1024 * 1024);
        const token = options.token ?? process.env.TOOLBRIDGE_TOKEN ?? undefined;
        for (const origin of options.corsOrigin ?? []) {
          if (!/^https?:\/\/[^/\s?#]+\/?$/i.test(origin)) {
            throw new CliError(
              `--cors-origin takes origins like http://localhost:5173 (scheme, host and port, no path), got "${origin}".`,
              2,
            );
          }
        }
        const logger = stderrMountLogger(options.verbose === true);
        // The memory tools too, as `tools list` and `run` offer them; their database opens at the first call.
        const runtime = await createToolsRuntime({
          db: options.db,
          ...(options.config ? { configPath: options.config } : {}),
          mcpLogger: logger,
        });
        // Everything kept lives in the database, shared by every instance on it. An SQLite file is opened at its
        // first use (serving without changing anything creates none); PostgreSQL now, so that an unreachable server
        // stops the start with its reason.
        const database = runtime.database;
        let runs: RunService | undefined;
        try {
          if (database.location.kind === "postgres") await database.open();
          const builtinTools = new Set(
            runtime.registry
              .definitions({ includeDisabled: true })
              .filter((definition) => !definition.category.startsWith("mcp:"))
              .map((definition) => definition.tool.name),
          );
          if (options.toolsModule) runtime.registry.registerAll(await loadToolsModule(options.toolsModule));
          // Tool settings live in the database; one that does not exist yet holds none, and is created by the first
          // change (serving without changing anything creates no database). Followed, so another instance's changes
          // (or one made while this one runs) apply here too.
          const settings = await runtime.withToolSettings({ follow: true });
          const approvals = mcpApprovalsFromConfig(
            { ...runtime.config.mcp, approvals: settings.approval },
            await mcpApprovalStoreSource(database),
          );
          // OpenAI-compatible /v1: the config's named models (+ the default model), else the bundled demo model.
          const models = serveModelCatalog({
            config: runtime.config,
            configFile: runtime.configFile,
            flags: modelFlagsOf(options),
          });
          // Runs API and WebSocket (/api/runs, /api/conversations, /ws) on the same models and tool settings.
          runs = models ? createServeRuns(runtime, models, settings.approval, database) : undefined;
          const service = runs;
          const allowedOrigins = options.allowedOrigin ?? runtime.config.server?.allowedOrigins;
          const allowedHosts = options.allowedHost ?? runtime.config.server?.allowedHosts;
          const server = await startServer({
            ...(service
              ? {
                  runs: {
                    service,
                    // The pending calls of every run on the database (also `toolbridge run`'s); none before it exists.
                    pendingApprovals: async () =>
                      database.exists() ? listPendingApprovals(service.store) : [],
                  },
                }
              : {}),
            mcp: { approvals },
            ...(models ? { openai: { models } } : {}),
            toolsApi: { settings, mcpServers: runtime.mcpServers, builtinTools },
            registry: runtime.registry,
            executor: runtime.executor,
            port,
            host: options.host,
            ...(token ? { token } : {}),
            ...(allowedOrigins ? { allowedOrigins } : {}),
            ...(allowedHosts ? { allowedHosts } : {}),
            ...(options.corsOrigin ? { corsOrigins: options.corsOrigin } : {}),
            ...(maxBodyBytes ? { maxBodyBytes } : {}),
            secureCookie: options.secureCookie ?? runtime.config.server?.secureCookie ?? false,
          }).catch((error: unknown) => {
            if (error instanceof ServerConfigError) throw new CliError(error.message, 2);
            throw error;
          });
          // Runs a dead process left running are resumed; a database that does not exist yet has none. On PostgreSQL
          // this instance also takes over, from now on, the runs other instances leave (see RunService.recover).
          if (runs && database.exists()) await runs.recover();
          for (const status of runtime.mcpServers.status()) logger.info?.(describeMcpServerStatus(status));
          // The first line's "on <url> " is what scripts (and the tests) wait for; the banner is one write, so that
          // whoever reads it whole (up to /mcp and the models line) reads it at once.
          const modelsLine = models
            ? `OpenAI-compatible API at ${server.url}/v1 — models: ${models.names().join(", ")} (default ${models.defaultName})\n`
            : "";
          process.stdout.write(
            `toolbridge serving ${runtime.registry.size} tool(s) on ${server.url} (Ctrl-C stops it)\n${describeServedRoutes(server.url)}\n${modelsLine}`,
          );
          await new Promise<void>((resolve) => {
            process.once("SIGINT", resolve);
            process.once("SIGTERM", resolve);
          });
          await server.close();
          return 0;
        } finally {
          // On PostgreSQL the runs this instance drives are handed to the others (RunService.close).
          await runs?.close();
          await runtime.close();
        }
      }),
    );
}

/** serve's options that are model flags (commander keeps every option in one object). */
const MODEL_FLAGS: ReadonlyArray<keyof ModelFlags> = [
  "model",
  "baseUrl",
  "api",
  "modelName",
  "anthropic",
  "chatTemplate",
  "protocol",
  "nativeTools",
  "toolChoice",
  "seed",
  "maxTokens",
  "threads",
  "apiKeyEnv",
];

function modelFlagsOf(options: ServeOptions): ModelFlags {
  const flags: Record<string, unknown> = {};
  for (const key of MODEL_FLAGS) if (options[key] !== undefined) flags[key] = options[key];
  return flags as ModelFlags;
}

/**
 * The run service of `serve`: the configured model (else the bundled one) as "default", loaded at the first run; runs
 * and their event log in the database, opened at the first run (or by `recover()`). Undefined when no model is
 * configured: the Runs API is then off.
 */
function createServeRuns(
  runtime: Runtime,
  models: ModelCatalog,
  approval: ApprovalPolicyConfig,
  database: LazyDatabase,
): RunService {
  // PostgreSQL was opened at the start; an SQLite file opens here, at its first use.
  const open = () => database.opened ?? database.openSqliteNow();
  return new RunService({
    models,
    approval,
    ...(runtime.config.toolSelection ? { agent: { toolSelection: runtime.config.toolSelection } } : {}),
    store: lazily(() => open().store),
    events: lazily(() => open().events),
    conversations: lazily(() => open().conversations),
    executor: runtime.executor,
    // Once the database is open, a run's record is written before its id is answered: any instance can then read it.
    recordBeforeAnswer: () => database.opened !== undefined,
  });
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
