import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import {
  Client,
  type Implementation,
  type PriorDiscovery,
  SSEClientTransport,
  StreamableHTTPClientTransport,
  type Tool,
  type Transport,
} from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { toolDefinitionFromMcpTool } from "../tools/define-tool.js";
import { DuplicateToolError } from "../tools/errors.js";
import { errorResult } from "../tools/normalize-tool-result.js";
import type { AnyToolDefinition, ToolContext } from "../tools/tool-definition.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import { isStdioServerConfig, type McpServerConfig } from "./mcp-servers-config.js";
import { namespaceToolName } from "./namespace-tool-name.js";

export type McpServerState = "connecting" | "ready" | "restarting" | "error" | "stopped";

export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http" | "sse";
  state: McpServerState;
  /** Tools of this server now in the registry (namespaced names). */
  tools: string[];
  toolCount: number;
  /** What went wrong last (start failure, exit, a tool that could not be mounted). */
  lastError?: string;
  /** The last lines a stdio server wrote to stderr (at most 20), to tell why it failed. */
  stderrTail?: string[];
  /** The child process of a stdio server while it runs. */
  pid?: number;
  /** How often the server was restarted after it went away. */
  restarts: number;
  /** What the server said it is (`initialize` or `server/discover`). */
  serverInfo?: Implementation;
  /** The protocol era negotiated: `modern` (2026-07-28) or `legacy` (2025). */
  era?: "legacy" | "modern";
  /** Whether the last connect skipped the era probe because the verdict was already known. */
  eraCached?: boolean;
}

/**
 * Where era verdicts are kept, per server (its command line or URL): the `server/discover` probe costs a second spawn on
 * stdio, so only the first connect to a server pays it; restarts and later mounts (later processes too, with a file
 * store) reuse the verdict. A verdict that no longer works (the server was upgraded) is dropped and probed again.
 */
export interface McpEraVerdictStore {
  get(key: string): PriorDiscovery | undefined;
  set(key: string, verdict: PriorDiscovery): void;
  delete(key: string): void;
}

/** This process's verdicts: the default store. */
const processVerdicts = new Map<string, PriorDiscovery>();

/** Verdicts kept in a JSON file, for the next process. A missing or unreadable file is an empty cache. */
export function fileEraVerdictStore(file: string): McpEraVerdictStore {
  let cache: Record<string, PriorDiscovery> | undefined;
  const load = () => {
    if (cache) return cache;
    try {
      cache = JSON.parse(readFileSync(file, "utf8")) as Record<string, PriorDiscovery>;
    } catch {
      cache = {};
    }
    return cache;
  };
  const save = () => {
    try {
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, `${JSON.stringify(cache)}\n`);
    } catch {
      // Only a cache: the next start probes again.
    }
  };
  return {
    get: (key) => load()[key],
    set(key, verdict) {
      const current = load();
      if (JSON.stringify(current[key]) === JSON.stringify(verdict)) return;
      current[key] = verdict;
      save();
    },
    delete(key) {
      const current = load();
      if (!(key in current)) return;
      delete current[key];
      save();
    },
  };
}

function eraKey(config: McpServerConfig): string {
  return isStdioServerConfig(config)
    ? JSON.stringify(["stdio", config.command, config.args ?? [], config.cwd ?? "", config.env ?? {}])
    : JSON.stringify(["http", config.url]);
}

/** Forget this process's era verdicts (a server was upgraded in place). */
export function forgetMcpEraVerdicts(): void {
  processVerdicts.clear();
}

export interface McpMountLogger {
  debug?(message: string): void;
  info?(message: string): void;
  warn?(message: string): void;
  error?(message: string): void;
}

export interface RestartPolicy {
  /** First delay before restarting a server that went away. Default 500 ms; doubles each failed try. */
  initialDelayMs?: number;
  /** Longest delay between tries. Default 30 s. */
  maxDelayMs?: number;
  /** Give up (state "error") after this many failed tries in a row. Default 8. */
  maxAttempts?: number;
}

export interface McpServerConnectionOptions {
  clientInfo?: Implementation;
  logger?: McpMountLogger;
  restart?: RestartPolicy;
  /** Connect timeout and per-call timeout when the server's config sets no timeoutMs. Default 30 s. */
  defaultTimeoutMs?: number;
  onStatus?: (status: McpServerStatus) => void;
  /** Where era verdicts are kept. Default: in this process. */
  eraVerdicts?: McpEraVerdictStore;
}

const STDERR_LINES = 20;

/**
 * One mounted MCP server: connects (spawning a stdio server, or over HTTP), puts its tools into the registry as
 * `<server>.<tool>`, follows its `tools/list_changed`, and restarts a stdio server that exits, with backoff. While it
 * is away its tools are unregistered, so callers see them as unavailable and registry listeners hear about it.
 */
export class McpServerConnection {
  readonly name: string;
  readonly #config: McpServerConfig;
  readonly #registry: ToolRegistry;
  readonly #options: McpServerConnectionOptions;
  #client: Client | undefined;
  #transport: Transport | undefined;
  #state: McpServerState = "stopped";
  #lastError: string | undefined;
  #restarts = 0;
  #failures = 0;
  #retryTimer: NodeJS.Timeout | undefined;
  #stopped = false;
  #serverInfo: Implementation | undefined;
  #era: "legacy" | "modern" | undefined;
  #eraCached = false;
  /** Registry name → the server's own tool object. */
  readonly #mounted = new Map<string, Tool>();
  #stderrTail: string[] = [];
  #syncing: Promise<void> = Promise.resolve();

  constructor(
    name: string,
    config: McpServerConfig,
    registry: ToolRegistry,
    options: McpServerConnectionOptions = {},
  ) {
    this.name = name;
    this.#config = config;
    this.#registry = registry;
    this.#options = options;
  }

  get state(): McpServerState {
    return this.#state;
  }

  get #timeoutMs(): number {
    return this.#config.timeoutMs ?? this.#options.defaultTimeoutMs ?? 30_000;
  }

  get #transportKind(): McpServerStatus["transport"] {
    if (isStdioServerConfig(this.#config)) return "stdio";
    return this.#config.type === "sse" ? "sse" : "http";
  }

  status(): McpServerStatus {
    const tools = [...this.#mounted.keys()].sort();
    const status: McpServerStatus = {
      name: this.name,
      transport: this.#transportKind,
      state: this.#state,
      tools,
      toolCount: tools.length,
      restarts: this.#restarts,
    };
    if (this.#lastError !== undefined) status.lastError = this.#lastError;
    if (this.#stderrTail.length > 0) status.stderrTail = [...this.#stderrTail];
    const pid = this.#transport instanceof StdioClientTransport ? this.#transport.pid : null;
    if (pid !== null && pid !== undefined && this.#state === "ready") status.pid = pid;
    if (this.#serverInfo) status.serverInfo = this.#serverInfo;
    if (this.#era) {
      status.era = this.#era;
      status.eraCached = this.#eraCached;
    }
    return status;
  }

  /** First connection. Never throws: a failure is the status "error" with its reason in `lastError`. */
  async start(): Promise<void> {
    this.#stopped = false;
    this.#failures = 0;
    this.#setState("connecting");
    try {
      await this.#connect();
    } catch (error) {
      this.#lastError = this.#describeFailure("could not be started", error);
      this.#options.logger?.error?.(this.#lastError);
      this.#setState("error");
    }
  }

  /** Disconnect (stopping a stdio server's process) and take its tools out of the registry. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#retryTimer);
    this.#unmountAll();
    const client = this.#client;
    this.#client = undefined;
    this.#transport = undefined;
    this.#setState("stopped");
    await client?.close().catch(() => {});
  }

  /** Stop, then start again (e.g. after fixing what made it fail). */
  async restart(): Promise<void> {
    await this.stop();
    await this.start();
  }

  #setState(state: McpServerState): void {
    this.#state = state;
    this.#options.onStatus?.(this.status());
  }

  #createTransport(): Transport {
    const config = this.#config;
    if (isStdioServerConfig(config)) {
      const transport = new StdioClientTransport({
        command: config.command,
        ...(config.args ? { args: config.args } : {}),
        ...(config.env ? { env: config.env } : {}),
        ...(config.cwd ? { cwd: config.cwd } : {}),
        // Piped, not inherited: `toolbridge mcp` owns stdout/stderr, and the tail explains start failures.
        stderr: "pipe",
      });
      this.#stderrTail = [];
      transport.stderr?.on("data", (chunk: Buffer) => {
        for (const line of chunk.toString("utf8").split(/\r?\n/)) {
          if (!line.trim()) continue;
          this.#stderrTail.push(line);
          if (this.#stderrTail.length > STDERR_LINES) this.#stderrTail.shift();
          this.#options.logger?.debug?.(`[${this.name}] ${line}`);
        }
      });
      return transport;
    }
    const url = new URL(config.url);
    const requestInit: RequestInit = config.headers ? { headers: config.headers } : {};
    return config.type === "sse"
      ? new SSEClientTransport(url, { requestInit })
      : new StreamableHTTPClientTransport(url, { requestInit });
  }

  async #connect(useVerdict = true): Promise<void> {
    const transport = this.#createTransport();
    // The old HTTP+SSE transport predates the 2026 revision: never probe it.
    const legacyOnly = !isStdioServerConfig(this.#config) && this.#config.type === "sse";
    const key = eraKey(this.#config);
    const verdicts = this.#options.eraVerdicts ?? processVerdicts;
    const prior: PriorDiscovery | undefined = legacyOnly
      ? { kind: "legacy" }
      : useVerdict
        ? verdicts.get(key)
        : undefined;
    const client = new Client(this.#options.clientInfo ?? { name: "toolbridge", version: "0" }, {
      capabilities: {},
      versionNegotiation: { mode: "auto", probe: { timeoutMs: Math.min(this.#timeoutMs, 10_000) } },
    });
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      if (this.#client === client) this.#queueSync(client);
    });
    try {
      await client.connect(transport, { timeout: this.#timeoutMs, ...(prior ? { prior } : {}) });
      const era = client.getProtocolEra() === "modern" ? "modern" : "legacy";
      const discover = client.getDiscoverResult();
      if (!legacyOnly)
        verdicts.set(key, era === "modern" && discover ? { kind: "modern", discover } : { kind: "legacy" });
      this.#era = era;
      this.#eraCached = prior !== undefined;
      // 2026 servers send list_changed only on a stream the client opened for it.
      if (era === "modern") await client.listen({ toolsListChanged: true }).catch(() => {});
    } catch (error) {
      await client.close().catch(() => {});
      if (prior && !legacyOnly && !this.#stopped) {
        // The remembered era no longer works (the server changed): forget it and negotiate again.
        verdicts.delete(key);
        return this.#connect(false);
      }
      throw error;
    }
    if (this.#stopped) {
      await client.close().catch(() => {});
      return;
    }
    this.#client = client;
    this.#transport = transport;
    this.#serverInfo = client.getServerVersion();
    this.#lastError = undefined;
    client.onclose = () => {
      if (this.#client === client) this.#lost();
    };
    await this.#syncTools(client);
    this.#failures = 0;
    this.#setState("ready");
    this.#options.logger?.info?.(`MCP server "${this.name}" is ready with ${this.#mounted.size} tool(s).`);
  }

  /** The connection ended without our asking: unmount, then reconnect with backoff (stdio servers only). */
  #lost(): void {
    this.#client = undefined;
    this.#transport = undefined;
    this.#unmountAll();
    if (this.#stopped) return;
    const why = this.#stderrTail.length ? `; last stderr: ${this.#stderrTail.slice(-3).join(" | ")}` : "";
    this.#lastError = `MCP server "${this.name}" went away${why}`;
    this.#options.logger?.warn?.(this.#lastError);
    if (!isStdioServerConfig(this.#config)) {
      this.#setState("error");
      return;
    }
    this.#scheduleRestart();
  }

  #scheduleRestart(): void {
    const policy = this.#options.restart ?? {};
    const maxAttempts = policy.maxAttempts ?? 8;
    if (this.#failures >= maxAttempts) {
      this.#lastError = `${this.#lastError ?? `MCP server "${this.name}" failed`}; gave up after ${maxAttempts} restart attempts.`;
      this.#setState("error");
      return;
    }
    const initial = policy.initialDelayMs ?? 500;
    const delay = Math.min(initial * 2 ** this.#failures, policy.maxDelayMs ?? 30_000);
    this.#setState("restarting");
    this.#retryTimer = setTimeout(() => {
      if (this.#stopped) return;
      this.#restarts++;
      this.#connect().catch((error: unknown) => {
        this.#failures++;
        this.#lastError = this.#describeFailure("could not be restarted", error);
        this.#options.logger?.warn?.(this.#lastError);
        if (!this.#stopped) this.#scheduleRestart();
      });
    }, delay);
    this.#retryTimer.unref();
  }

  #describeFailure(what: string, error: unknown): string {
    const config = this.#config;
    const where = isStdioServerConfig(config)
      ? `command: ${[config.command, ...(config.args ?? [])].join(" ")}`
      : `url: ${config.url}`;
    let reason = error instanceof Error ? error.message : String(error);
    if (/Connection closed/i.test(reason)) {
      reason = "the connection closed before the MCP handshake finished (did the server process exit?)";
    }
    if ((error as NodeJS.ErrnoException)?.code === "ENOENT" && isStdioServerConfig(config)) {
      reason = `"${config.command}" was not found; check "command" in mcpServers.${this.name} (and PATH)`;
    }
    const stderr = this.#stderrTail.length
      ? `\nServer stderr (last lines):\n  ${this.#stderrTail.join("\n  ")}`
      : "";
    return `MCP server "${this.name}" ${what} (${where}): ${reason}${stderr}`;
  }

  #queueSync(client: Client): void {
    this.#syncing = this.#syncing
      .then(() => this.#syncTools(client))
      .catch((error: unknown) => {
        this.#lastError = `MCP server "${this.name}": refreshing its tool list failed: ${(error as Error).message}`;
        this.#options.logger?.warn?.(this.#lastError);
      })
      .then(() => {
        if (this.#client === client) this.#options.onStatus?.(this.status());
      });
  }

  async #listAllTools(client: Client): Promise<Tool[]> {
    const tools: Tool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 1000; page++) {
      // An explicit cursor keeps listTools to one page (without one, v2 walks every page itself).
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: this.#timeoutMs,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (!cursor) break;
    }
    return tools;
  }

  /** Make the registry hold exactly the server's current tools; unchanged tools are left alone. */
  async #syncTools(client: Client): Promise<void> {
    const remote = await this.#listAllTools(client);
    if (this.#client !== client) return;
    const wanted = new Map<string, Tool>();
    for (const tool of remote) wanted.set(namespaceToolName(this.name, tool.name), tool);

    for (const [registryName, tool] of this.#mounted) {
      const next = wanted.get(registryName);
      if (!next || JSON.stringify(next) !== JSON.stringify(tool)) {
        this.#registry.unregister(registryName);
        this.#mounted.delete(registryName);
      }
    }
    const problems: string[] = [];
    for (const [registryName, tool] of wanted) {
      if (this.#mounted.has(registryName)) continue;
      try {
        this.#registry.register(this.#definitionFor(registryName, tool));
        this.#mounted.set(registryName, tool);
      } catch (error) {
        problems.push(
          error instanceof DuplicateToolError
            ? `"${registryName}" is already registered by something else`
            : `"${tool.name}": ${(error as Error).message}`,
        );
      }
    }
    if (problems.length > 0) {
      this.#lastError = `MCP server "${this.name}": ${problems.length} tool(s) not mounted: ${problems.join("; ")}`;
      this.#options.logger?.warn?.(this.#lastError);
    }
  }

  #definitionFor(registryName: string, tool: Tool): AnyToolDefinition {
    const mounted: Tool = { ...tool, name: registryName };
    const timeoutMs = this.#config.timeoutMs;
    return toolDefinitionFromMcpTool(
      mounted,
      (args: Record<string, unknown>, context: ToolContext) => this.#call(tool.name, args, context),
      {
        category: `mcp:${this.name}`,
        ...(timeoutMs ? { timeoutMs } : {}),
      },
    );
  }

  async #call(remoteName: string, args: Record<string, unknown>, context: ToolContext) {
    const client = this.#client;
    if (!client)
      return errorResult(`MCP server "${this.name}" is not connected (${this.#state}); try again shortly.`);
    const result = await client.callTool(
      { name: remoteName, arguments: args },
      {
        signal: context.signal,
        timeout: this.#timeoutMs,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => context.reportProgress(progress.progress, progress.total, progress.message),
      },
    );
    // Servers speaking the 2024-10-07 protocol answer `{toolResult}`; wrap it so callers always get content.
    if (!Array.isArray((result as { content?: unknown }).content)) {
      const legacy = (result as { toolResult?: unknown }).toolResult;
      return { content: [{ type: "text" as const, text: JSON.stringify(legacy ?? result) }] };
    }
    return result;
  }

  #unmountAll(): void {
    for (const registryName of this.#mounted.keys()) this.#registry.unregister(registryName);
    this.#mounted.clear();
  }
}
