import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import {
  type CallToolResult,
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  type ClientCapabilities,
  type Implementation,
  type InputRequiredResult,
  type InputRequiredSpec,
  inputRequired,
  inputResponse,
  type ListToolsResult,
  ProtocolError,
  ProtocolErrorCode,
  Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { CallGate } from "../tools/call-gate.js";
import { InvalidCursorError, ToolNotFoundError } from "../tools/errors.js";
import { errorResult } from "../tools/normalize-tool-result.js";
import { ToolExecutor } from "../tools/tool-executor.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import {
  approvalQuestion,
  argumentsHash as argumentsHashOf,
  McpApprovals,
  type McpStatePayload,
  noElicitationMessage,
} from "./mcp-approvals.js";
import { type McpEra, type McpRequestContext, mcpRequestStorage } from "./mcp-request-context.js";

export interface McpServerOptions {
  registry: ToolRegistry;
  /** Runs the calls; defaults to a ToolExecutor with default limits over `registry`. */
  executor?: ToolExecutor;
  /** Name and version announced to clients. Defaults to toolbridge and the package version. */
  serverInfo?: Implementation;
  /** Text a client may show its model about how to use this server. */
  instructions?: string;
  /** The call gate to ask; default one over `registry` with `approvals.policies`. */
  gate?: CallGate;
  /**
   * Approval policies, signing key and ledger. Share one McpApprovals between every instance of an endpoint: a 2026
   * retry may reach another instance (or another process on the same database).
   */
  approvals?: McpApprovals;
  /**
   * Who the calls are made for (fair shares, cooldowns, rate limits, the caller bound into approval state) when the
   * HTTP layer names nobody (`authInfo.clientId`, which `serve` sets to the token's principal or the client address).
   * Default: this connection (a 2025 session or a stdio client) — never a name the client states, which it could
   * change at every request to get a fresh share.
   */
  userId?: (request: { clientInfo: Implementation | undefined; sessionId: string | undefined }) => string;
}

/** Cache hint for tools/list on 2026: short, because policies and enabled flags can change (list_changed follows). */
export const TOOLS_LIST_TTL_MS = 5_000;

function packageVersion(): string {
  try {
    const url = new URL("../../package.json", import.meta.url);
    return (JSON.parse(readFileSync(url, "utf8")) as { version?: string }).version ?? "0.0.0";
  } catch {
    return "0.0.0";
  }
}

/**
 * An MCP server (the SDK v2 low-level `Server`, so tools keep their plain JSON Schemas checked by our own validator
 * and an unknown tool is the JSON-RPC error -32602) that serves a ToolRegistry through a ToolExecutor. One instance
 * serves one 2026 request, one 2025 HTTP session or one stdio connection: build them with this function as the
 * factory, sharing `approvals`. Registry changes reach clients through followRegistryChanges (the serving entries
 * wire it).
 */
export function createMcpServer(options: McpServerOptions, era: McpEra = "legacy"): Server {
  const { registry } = options;
  const executor = options.executor ?? new ToolExecutor(registry);
  const approvals = options.approvals ?? new McpApprovals();
  // Whether a call runs is the call gate's answer, as on every surface; this server renders it (a tool it would
  // refuse is not offered, `ask` becomes an elicitation).
  const gate = options.gate ?? new CallGate(registry, approvals.policies);
  const connection = `mcp-connection:${randomUUID()}`;
  const server = new Server(options.serverInfo ?? { name: "toolbridge", version: packageVersion() }, {
    capabilities: { tools: { listChanged: true }, logging: {} },
    ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    cacheHints: { "tools/list": { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: "public" } },
    // Runs before any handler: a tampered or expired state is -32602 "Invalid or expired requestState".
    requestState: { verify: (state, ctx) => approvals.codec.verify(state, ctx) },
  });

  server.setRequestHandler("tools/list", async (request): Promise<ListToolsResult> => {
    try {
      const cursor = request.params?.cursor;
      const page = registry.list(cursor === undefined ? {} : { cursor });
      const tools = page.tools.filter((tool) => {
        const definition = registry.get(tool.name);
        return definition === undefined || gate.offers(definition);
      });
      return page.nextCursor === undefined ? { tools } : { tools, nextCursor: page.nextCursor };
    } catch (error) {
      if (error instanceof InvalidCursorError)
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
      throw error;
    }
  });

  const clientOf = (ctx: ServerContext) => {
    // 2026: the validated envelope (the SDK moves the reserved keys there); 2025: what `initialize` declared.
    const meta = { ...ctx.mcpReq._meta, ...ctx.mcpReq.envelope } as Record<string, unknown>;
    const capabilities =
      (meta[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined) ??
      server.getClientCapabilities();
    const info = (meta[CLIENT_INFO_META_KEY] as Implementation | undefined) ?? server.getClientVersion();
    return { capabilities, info };
  };

  server.setRequestHandler(
    "tools/call",
    async (request, ctx): Promise<CallToolResult | InputRequiredResult> => {
      const { name } = request.params;
      const args = (request.params.arguments ?? {}) as Record<string, unknown>;
      const definition = registry.get(name);
      // A tool this server does not offer (unknown, switched off, `never`) is unknown to the client, as its list says.
      if (!definition || gate.check({ name, arguments: args }).action === "refuse") {
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          new ToolNotFoundError(name, registry.names()).message,
        );
      }
      const client = clientOf(ctx);
      const caller =
        ctx.http?.authInfo?.clientId ??
        options.userId?.({ clientInfo: client.info, sessionId: ctx.sessionId }) ??
        (ctx.sessionId ? `mcp-session:${ctx.sessionId}` : connection);

      // The state was verified (signature, expiry) before this handler ran; here it must also be this very call's.
      const state = ctx.mcpReq.requestState<McpStatePayload>();
      if (state !== undefined) {
        if (
          typeof state !== "object" ||
          state.tool !== name ||
          state.args !== argumentsHashOf(args) ||
          state.caller !== caller
        ) {
          throw new ProtocolError(
            ProtocolErrorCode.InvalidParams,
            "This requestState belongs to another call (other tool, arguments or caller); nothing ran. Call the tool again without it.",
          );
        }
      }

      // What the caller brings: a client trusted to ask its user has asked; else an elicitation answered now.
      let decision: "approved" | "denied" | undefined = approvals.clientAsksUser ? "approved" : undefined;
      let answered: "decline" | "cancel" | undefined;
      if (decision === undefined && state?.kind === "approval") {
        const answer = inputResponse(ctx.mcpReq.inputResponses, "approval");
        // No answer to our question yet (the spec says: ask again rather than fail).
        if (answer.kind === "elicit") {
          if (!(await approvals.ledger.consume(state.id, state.expiresAt))) {
            return errorResult(
              `This approval of "${name}" was already used; nothing ran. Call the tool again to be asked again.`,
            );
          }
          if (answer.action === "accept") decision = "approved";
          else {
            decision = "denied";
            answered = answer.action;
          }
        }
      }
      const verdict = gate.check({ name, arguments: args }, { decision });
      if (verdict.action === "refuse") {
        if (verdict.reason === "denied") {
          return errorResult(
            `The person ${answered === "cancel" ? "cancelled" : "declined"} running "${name}"; nothing ran. Do not retry unless they ask for it.`,
          );
        }
        // Switched off or set to `never` between the check above and now.
        throw new ProtocolError(ProtocolErrorCode.InvalidParams, verdict.message);
      }
      if (verdict.action === "ask") {
        if (!client.capabilities?.elicitation) return errorResult(noElicitationMessage(name));
        return inputRequired({
          inputRequests: {
            approval: inputRequired.elicit({
              message: approvalQuestion(name, args),
              requestedSchema: { type: "object", properties: {} },
            }),
          },
          requestState: await approvals.codec.mint(approvals.payload("approval", name, args, caller)),
        });
      }

      let pending: { spec: InputRequiredSpec["inputRequests"]; state: unknown } | undefined;
      const context: McpRequestContext = {
        requestId: ctx.mcpReq.id,
        sessionId: ctx.sessionId,
        era,
        clientCapabilities: client.capabilities,
        clientInfo: client.info,
        // The tool's own answers (untrusted client data, as the spec says); approval answers are ours, not the tool's.
        inputResponses: state?.kind === "approval" ? undefined : ctx.mcpReq.inputResponses,
        requestState: state?.kind === "tool" ? state.data : undefined,
        log: (level, data, logger) => ctx.mcpReq.log(level, data, logger),
        inputRequired(spec) {
          // Recorded here and answered as input_required once the tool returns; what it returns is a placeholder.
          pending = { spec: spec.inputRequests, state: spec.requestState };
          return { content: [] };
        },
        ...(ctx.http?.closeSSE ? { closeSSEStream: ctx.http.closeSSE } : {}),
      };

      const progressToken = ctx.mcpReq._meta?.progressToken;
      let progressSent: Promise<void> = Promise.resolve();
      const onProgress =
        progressToken === undefined
          ? undefined
          : (update: { progress: number; total?: number; message?: string }) => {
              // A progress message that cannot be delivered (client gone) must not fail the call.
              progressSent = ctx.mcpReq
                .notify({ method: "notifications/progress", params: { progressToken, ...update } })
                .catch(() => {});
            };

      try {
        const outcome = await mcpRequestStorage.run(context, () =>
          executor.execute(
            { name, arguments: args, callId: String(ctx.mcpReq.id) },
            { signal: ctx.mcpReq.signal, userId: caller, ...(onProgress ? { onProgress } : {}) },
          ),
        );
        // Progress sent after the response would be dropped by the client: let the last one go out first.
        await progressSent;
        if (pending) {
          const spec: InputRequiredSpec = {};
          if (pending.spec) spec.inputRequests = pending.spec;
          spec.requestState = await approvals.codec.mint(
            approvals.payload("tool", name, args, caller, pending.state),
          );
          return inputRequired(spec);
        }
        return server.projectCallToolResult(outcome.result, definition.tool.outputSchema);
      } catch (error) {
        // The tool vanished between the check above and the call (a mounted server went away).
        if (error instanceof ToolNotFoundError)
          throw new ProtocolError(ProtocolErrorCode.InvalidParams, error.message);
        throw error;
      }
    },
  );

  return server;
}

/**
 * Send `list_changed` to a 2025 connection's server once per burst of registry changes (a mounted server brings many
 * tools at once). Returns the unsubscribe function.
 */
export function followRegistryChanges(registry: ToolRegistry, notify: () => void): () => void {
  let pending = false;
  return registry.onChange(() => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      notify();
    });
  });
}
