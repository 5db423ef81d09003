import type { Context } from "hono";
import { Hono } from "hono";
import type { MountedMcpServers } from "../../mcp/mount-mcp-servers.js";
import { CallGate, executeOptionsFor } from "../../tools/call-gate.js";
import { InvalidCursorError } from "../../tools/errors.js";
import type { AnyToolDefinition } from "../../tools/tool-definition.js";
import type { ToolExecutor } from "../../tools/tool-executor.js";
import { isValidToolName } from "../../tools/tool-name.js";
import type { ToolRegistry } from "../../tools/tool-registry.js";
import { apiError } from "../api-error.js";
import { gateRefusal } from "./gate-refusal.js";
import { parseToolSettingsPatch, type ToolSettings, ToolSettingsInputError } from "./tool-settings.js";
import { toolSourceOf } from "./tool-source.js";

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

const MAX_PAGE_SIZE = 500;

/** Read a JSON body; undefined when there is none. Throws SyntaxError for malformed JSON. */
async function jsonBody(c: Context): Promise<unknown> {
  const text = await c.req.text();
  return text.trim() === "" ? undefined : (JSON.parse(text) as unknown);
}

function badJson(error: unknown): Response {
  return apiError(
    400,
    `Bad Request: the body is not valid JSON (${(error as Error).message}). Nothing was changed.`,
    "invalid_request_error",
    "invalid_json",
  );
}

/**
 * The Tools API under /api: list tools with their source, policy and on/off state; call one through the executor
 * (validation, timeout, redaction, as everywhere); change a tool's settings; see and restart mounted MCP servers.
 */
export function createToolsApi(options: ToolsApiOptions): Hono {
  const { registry, executor, settings } = options;
  const gate = options.gate ?? new CallGate(registry, settings.approval);
  const api = new Hono();

  const view = (definition: AnyToolDefinition) => {
    const tool = definition.tool;
    const name = tool.name;
    return {
      name,
      ...(tool.title === undefined ? {} : { title: tool.title }),
      ...(tool.description === undefined ? {} : { description: tool.description }),
      category: definition.category,
      source: toolSourceOf(definition, options),
      enabled: settings.enabled(name),
      policy: settings.effectivePolicy(definition),
      policySource: settings.policySource(definition),
      configuredPolicy: settings.configuredPolicy(definition),
      requiresApproval: definition.requiresApproval,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
      ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
    };
  };

  const notFound = (name: string) =>
    apiError(
      404,
      `Unknown tool "${name}". GET /api/tools lists the tools this server has.`,
      "not_found_error",
      "tool_not_found",
    );

  api.get("/tools", (c) => {
    const cursor = c.req.query("cursor");
    const category = c.req.query("category");
    const limitText = c.req.query("limit");
    let pageSize: number | undefined;
    if (limitText !== undefined) {
      pageSize = Number(limitText);
      if (!/^\d+$/.test(limitText) || pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
        return apiError(
          400,
          `\`limit\` must be a whole number from 1 to ${MAX_PAGE_SIZE}, got "${limitText}".`,
          "invalid_request_error",
          "invalid_limit",
        );
      }
    }
    try {
      const page = registry.list({
        includeDisabled: true,
        ...(cursor === undefined ? {} : { cursor }),
        ...(category === undefined ? {} : { category }),
        ...(pageSize === undefined ? {} : { pageSize }),
      });
      const tools = page.tools.flatMap((tool) => {
        const definition = registry.get(tool.name, { includeDisabled: true });
        return definition ? [view(definition)] : [];
      });
      return c.json(page.nextCursor === undefined ? { tools } : { tools, nextCursor: page.nextCursor });
    } catch (error) {
      if (error instanceof InvalidCursorError)
        return apiError(400, error.message, "invalid_request_error", "invalid_cursor");
      throw error;
    }
  });

  api.get("/tools/:name", (c) => {
    const name = c.req.param("name");
    const definition = registry.get(name, { includeDisabled: true });
    return definition ? c.json(view(definition)) : notFound(name);
  });

  api.post("/tools/:name/call", async (c) => {
    const name = c.req.param("name");
    let body: unknown;
    try {
      body = await jsonBody(c);
    } catch (error) {
      return badJson(error);
    }
    if (body !== undefined && (body === null || typeof body !== "object" || Array.isArray(body))) {
      return apiError(
        400,
        'The body must be a JSON object: {"arguments": {…}} (add "confirm": true for a tool whose policy is "ask").',
        "invalid_request_error",
        "invalid_body",
      );
    }
    const request = (body ?? {}) as { arguments?: unknown; confirm?: unknown; dryRun?: unknown };
    const unknownKeys = Object.keys(request).filter(
      (key) => !["arguments", "confirm", "dryRun"].includes(key),
    );
    if (unknownKeys.length > 0) {
      return apiError(
        400,
        `Unknown field(s) ${unknownKeys.map((key) => `\`${key}\``).join(", ")}: a call takes \`arguments\`, \`confirm\` and \`dryRun\`.`,
        "invalid_request_error",
        "invalid_body",
      );
    }
    if (request.confirm !== undefined && typeof request.confirm !== "boolean") {
      return apiError(400, "`confirm` must be true or false.", "invalid_request_error", "invalid_body");
    }
    if (request.dryRun !== undefined && typeof request.dryRun !== "boolean") {
      return apiError(400, "`dryRun` must be true or false.", "invalid_request_error", "invalid_body");
    }
    const args = request.arguments ?? {};
    // An HTTP call is an explicit action, like `tools call`, but the caller may be a page: `confirm: true` says a
    // person confirmed this very call, which is what an `ask` tool needs.
    const answer = gate.check(
      { name, arguments: args },
      { decision: request.confirm === true ? "approved" : undefined, dryRun: request.dryRun === true },
    );
    if (answer.action !== "run") {
      const refusal = gateRefusal(name, answer, "GET /api/tools lists the tools this server has.");
      return apiError(refusal.status, refusal.message, refusal.type, refusal.code);
    }
    const outcome = await executor.execute(
      { name, arguments: args },
      {
        signal: c.req.raw.signal,
        ...(options.callerOf ? { userId: options.callerOf(c) } : {}),
        ...executeOptionsFor(answer, request.dryRun === true),
      },
    );
    return c.json(outcome.result);
  });

  api.patch("/tools/:name", async (c) => {
    const name = c.req.param("name");
    if (!isValidToolName(name)) {
      return apiError(
        400,
        `"${String(name).slice(0, 64)}" is not a tool name (1–128 characters of A-Z a-z 0-9 _ . -).`,
        "invalid_request_error",
        "invalid_tool_name",
      );
    }
    const definition = registry.get(name, { includeDisabled: true });
    const pendingServer = options.mcpServers
      ?.status()
      .find((status) => name.startsWith(`${status.name}.`) && status.state !== "ready");
    if (!definition && !pendingServer && !settings.get(name)) return notFound(name);
    let body: unknown;
    try {
      body = await jsonBody(c);
    } catch (error) {
      return badJson(error);
    }
    let patch: ReturnType<typeof parseToolSettingsPatch>;
    try {
      patch = parseToolSettingsPatch(body);
    } catch (error) {
      if (error instanceof ToolSettingsInputError)
        return apiError(
          422,
          `${error.message} Nothing was changed.`,
          "invalid_request_error",
          "invalid_settings",
        );
      throw error;
    }
    const stored = await settings.update(name, patch);
    if (definition) return c.json(view(definition));
    // Kept for a tool that is not there yet (its server is still connecting): applied when it appears.
    return c.json({
      name,
      registered: false,
      enabled: stored.enabled !== false,
      ...(stored.policy ? { policy: stored.policy } : {}),
    });
  });

  api.get("/mcp-servers", (c) =>
    c.json({
      servers: (options.mcpServers?.status() ?? []).map((status) => ({
        name: status.name,
        state: status.state,
        transport: status.transport,
        toolCount: status.toolCount,
        tools: status.tools,
        lastError: status.lastError ?? null,
        stderrTail: status.stderrTail ?? [],
        restarts: status.restarts,
        ...(status.pid ? { pid: status.pid } : {}),
        ...(status.era ? { era: status.era } : {}),
      })),
    }),
  );

  api.post("/mcp-servers/:name/restart", async (c) => {
    const name = c.req.param("name");
    const mounted = options.mcpServers;
    const status = mounted?.status().find((entry) => entry.name === name);
    if (!mounted || !status) {
      const names = mounted?.status().map((entry) => entry.name) ?? [];
      return apiError(
        404,
        `No mounted MCP server named "${name}"; mounted: ${names.join(", ") || "none"}.`,
        "not_found_error",
        "mcp_server_not_found",
      );
    }
    await mounted.restart(name);
    const after = mounted.status().find((entry) => entry.name === name);
    return c.json({
      name,
      state: after?.state ?? "stopped",
      toolCount: after?.toolCount ?? 0,
      lastError: after?.lastError ?? null,
    });
  });

  return api;
}
