import { AsyncLocalStorage } from "node:async_hooks";
import type {
  CallToolResult,
  ClientCapabilities,
  Implementation,
  InputRequiredSpec,
  LoggingLevel,
  RequestId,
} from "@modelcontextprotocol/server";

/** Which MCP revision family the request came in on: 2026-07-28 ("modern", stateless) or 2025 ("legacy"). */
export type McpEra = "legacy" | "modern";

/**
 * What a tool can do with the MCP client that called it, beyond its ToolContext: log to the client and ask the client
 * for input (a person's answer, a sampling completion, its roots). Only present while a tool runs under toolbridge's
 * MCP server; a tool that needs it must cope with `undefined` (called from the agent loop or the CLI).
 *
 * Asking is written once for both protocol eras: the tool returns `inputRequired(...)`; a 2026 client answers by
 * re-sending the call with `inputResponses` (and the `requestState` echoed), a 2025 client is asked through a pushed
 * `elicitation/create` / `sampling/createMessage` by the SDK, and the tool runs again with the answers either way.
 */
export interface McpRequestContext {
  /** The JSON-RPC id of the `tools/call` request being served. */
  readonly requestId: RequestId;
  /** The Streamable HTTP session (2025 clients on HTTP only). */
  readonly sessionId: string | undefined;
  readonly era: McpEra;
  /** What the client declared (per request on 2026, at `initialize` on 2025); check it before asking for input. */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /** The client's stated name and version: for display only, never for security decisions. */
  readonly clientInfo: Implementation | undefined;
  /** Answers to an earlier `inputRequired`, keyed as asked (undefined on the first round). */
  readonly inputResponses: Record<string, unknown> | undefined;
  /** The verified state the previous round carried (see `inputRequired`), or undefined on the first round. */
  readonly requestState: unknown;
  /** Send `notifications/message` tied to this request; the SDK drops it below the level the client asked for. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /**
   * End this call asking the client for input; return what this gives back from the tool. `requestState` is any
   * JSON value: toolbridge signs it (HMAC, short expiry) and hands it back, verified, on the next round.
   */
  inputRequired(spec: {
    inputRequests?: InputRequiredSpec["inputRequests"];
    requestState?: unknown;
  }): CallToolResult;
  /**
   * End this request's SSE stream now; the client reconnects (Last-Event-ID) and receives the result there (SEP-1699
   * polling). Only on a 2025 Streamable HTTP session.
   */
  closeSSEStream?: () => void;
}

export const mcpRequestStorage = new AsyncLocalStorage<McpRequestContext>();

/** The MCP request the current tool call is serving, or undefined outside toolbridge's MCP server. */
export function currentMcpRequest(): McpRequestContext | undefined {
  return mcpRequestStorage.getStore();
}
