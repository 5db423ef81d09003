import path from "node:path";
import type { ToolbridgeConfig } from "../config/config-schema.js";
import { loadConfig } from "../config/load-config.js";
import { fileEraVerdictStore, type McpMountLogger } from "../mcp/mcp-server-connection.js";
import { type MountedMcpServers, mountMcpServers } from "../mcp/mount-mcp-servers.js";
import { defaultDataDir } from "../store/default-db-path.js";
import { createBuiltinTools } from "../tools/builtin/index.js";
import { MathWorkerPool } from "../tools/builtin/math-worker-pool.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import { ToolRegistry } from "../tools/tool-registry.js";

export interface RuntimeOptions {
  /** `--config <file>`; default toolbridge.config.json in cwd when present. */
  configPath?: string;
  cwd?: string;
  /** Where messages about mounted MCP servers go (start failures, restarts). Default: warnings and errors to stderr. */
  mcpLogger?: McpMountLogger;
  /**
   * Start the calculator's workers now, in the background (loading mathjs takes a second, many under load), so that
   * the first calculation does not wait for them: for `chat`, where a person waits. Default: at the first call.
   */
  startCalculator?: boolean;
}

/** Warnings and errors on stderr: stdout may carry JSON or the MCP protocol. */
const defaultMcpLogger: McpMountLogger = {
  warn: (line) => process.stderr.write(`toolbridge: ${line}\n`),
  error: (line) => process.stderr.write(`toolbridge: ${line}\n`),
};

/** What a command needs to work with tools: the validated config, a registry with the configured tools, an executor. */
export interface Runtime {
  config: ToolbridgeConfig;
  configFile: string | undefined;
  registry: ToolRegistry;
  executor: ToolExecutor;
  /** The external MCP servers from `mcpServers`, mounted into the registry as `<server>.<tool>`. */
  mcpServers: MountedMcpServers;
  /** Stop whatever the runtime started (mounted servers, workers). Safe to call twice. */
  close(): Promise<void>;
}

export async function createRuntime(options: RuntimeOptions = {}): Promise<Runtime> {
  const loadOptions: { configPath?: string; cwd?: string } = {};
  if (options.configPath !== undefined) loadOptions.configPath = options.configPath;
  if (options.cwd !== undefined) loadOptions.cwd = options.cwd;
  const { config, file } = loadConfig(loadOptions);
  const registryOptions: ConstructorParameters<typeof ToolRegistry>[0] = {};
  if (config.tools?.allow) registryOptions.allow = config.tools.allow;
  if (config.tools?.deny) registryOptions.deny = config.tools.deny;
  if (config.tools?.pageSize) registryOptions.pageSize = config.tools.pageSize;
  const registry = new ToolRegistry(registryOptions);
  const builtinOptions: Parameters<typeof createBuiltinTools>[0] = {};
  if (config.filesystem) builtinOptions.filesystem = config.filesystem;
  if (config.webSearch) builtinOptions.webSearch = config.webSearch;
  const calculatorPool = new MathWorkerPool();
  builtinOptions.calculator = { pool: calculatorPool };
  registry.registerAll(createBuiltinTools(builtinOptions));
  // A worker that fails to start now is started again by the first call, which reports what went wrong.
  if (options.startCalculator) calculatorPool.warmUp().catch(() => {});

  const executorOptions: ConstructorParameters<typeof ToolExecutor>[1] = {};
  if (config.tools?.concurrency) executorOptions.concurrency = config.tools.concurrency;
  if (config.tools?.timeoutMs) executorOptions.defaultTimeoutMs = config.tools.timeoutMs;
  if (config.tools?.maxOutputChars) executorOptions.defaultMaxOutputChars = config.tools.maxOutputChars;
  if (config.redaction?.envVars) executorOptions.redact = { envVars: config.redaction.envVars };
  const executor = new ToolExecutor(registry, executorOptions);

  // A server that fails to start is reported through the logger and leaves the others (and the built-ins) working.
  // Each mounted server's protocol era is remembered between runs, so only the first start pays the era probe.
  const mcpServers = await mountMcpServers(registry, config.mcpServers ?? {}, {
    logger: options.mcpLogger ?? defaultMcpLogger,
    eraVerdicts: fileEraVerdictStore(path.join(defaultDataDir(), "mcp-eras.json")),
  });
  const closers: Array<() => Promise<void> | void> = [() => calculatorPool.close(), () => mcpServers.close()];
  let closed = false;
  return {
    config,
    configFile: file,
    registry,
    executor,
    mcpServers,
    async close() {
      if (closed) return;
      closed = true;
      for (const close of closers.reverse()) await close();
    },
  };
}
