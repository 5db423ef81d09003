import { AsyncLocalStorage } from "node:async_hooks";
import type {
  ClientCapabilities,
  CreateMessageRequestParams,
  CreateMessageResult,
  ElicitRequestFormParams,
  ElicitResult,
  LoggingLevel,
  RequestId,
} from "@modelcontextprotocol/sdk/types.js";

/**
 * What a tool can do with the MCP client that called it, beyond its ToolContext: log to the client, ask the client's
 * model for a completion (sampling), ask the user for input (elicitation). Only present while a tool runs under
 * toolbridge's MCP server; a tool that needs it must cope with `undefined` (called from the agent loop or the CLI).
 */
export interface McpRequestContext {
  /** The JSON-RPC id of the `tools/call` request being served. */
  readonly requestId: RequestId;
  /** The Streamable HTTP session, when there is one. */
  readonly sessionId: string | undefined;
  /** What the client declared in `initialize`; check `sampling` / `elicitation` before asking for them. */
  readonly clientCapabilities: ClientCapabilities | undefined;
  /** Send `notifications/message` tied to this request; dropped below the level the client set. */
  log(level: LoggingLevel, data: unknown, logger?: string): Promise<void>;
  /** `sampling/createMessage` to the client. Rejects when the client did not declare `sampling`. */
  createMessage(params: CreateMessageRequestParams): Promise<CreateMessageResult>;
  /** `elicitation/create` (form mode) to the client. Rejects when the client did not declare `elicitation`. */
  elicitInput(params: ElicitRequestFormParams): Promise<ElicitResult>;
  /**
   * End this request's SSE stream now; the client reconnects (Last-Event-ID) and receives the result there (SEP-1699
   * polling, for long calls behind proxies that cut idle streams). Only on Streamable HTTP with clients of protocol
   * 2025-11-25 or later.
   */
  closeSSEStream?: () => void;
}

export const mcpRequestStorage = new AsyncLocalStorage<McpRequestContext>();

/** The MCP request the current tool call is serving, or undefined outside toolbridge's MCP server. */
export function currentMcpRequest(): McpRequestContext | undefined {
  return mcpRequestStorage.getStore();
}
