/**
 * The server's wire shapes as the UI reads them (docs/server.md: Runs API, Tools API, WebSocket). Declared here
 * rather than imported from src/: the UI is a client of the HTTP API, and reads fields defensively — an event or
 * field it does not know is shown plainly, never a crash.
 */

export type JsonObject = Record<string, unknown>;

export type RunStatus = "running" | "paused" | "finished" | "stopped";

/** MCP content blocks of a CallToolResult. */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image"; data: string; mimeType: string }
  | { type: "audio"; data: string; mimeType: string }
  | {
      type: "resource";
      resource: { uri: string; mimeType?: string; text?: string; blob?: string };
    }
  | {
      type: "resource_link";
      uri: string;
      name?: string;
      title?: string;
      mimeType?: string;
      description?: string;
    }
  | { type: string; [key: string]: unknown };

export interface CallToolResult {
  content?: ContentBlock[];
  structuredContent?: JsonObject;
  isError?: boolean;
  _meta?: JsonObject;
}

export interface PendingCall {
  callId: string;
  name: string;
  arguments: JsonObject;
}

/** One event of a run's log (the agent's event union), with the fields the UI uses. */
export type RunEvent = { runId: string; at: number; type: string; step?: number } & JsonObject;

export interface SequencedEvent {
  seq: number;
  event: RunEvent;
}

export interface ApprovalView {
  policy: "always" | "never" | "ask";
  decision: "pending" | "approved" | "denied";
  by: string | null;
  at: string | null;
  reason: string | null;
  originalArguments?: JsonObject;
}

export interface CallView {
  id: string;
  name: string;
  arguments: JsonObject;
  result: CallToolResult | null;
  approval: ApprovalView | null;
}

export interface RunView {
  runId: string;
  status: RunStatus;
  stopReason: string | null;
  answer: string | null;
  steps: Array<{ calls: CallView[] }>;
  pending: PendingCall[];
}

export interface RunSummary {
  runId: string;
  conversationId: string;
  status: RunStatus;
  stopReason: string | null;
  model: string;
  steps: number;
  toolCalls: number;
  tools?: string[];
  createdAt: string;
  updatedAt: string;
}

export interface ConversationSummary {
  conversationId: string;
  title: string | null;
  runs: number;
  lastRunId: string;
  lastStatus: RunStatus;
  updatedAt: string;
}

export type AgentMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
      role: "assistant";
      content: string;
      reasoning?: string;
      toolCalls?: Array<{ id: string; name: string; arguments: JsonObject }>;
    }
  | { role: "tool"; callId: string; name: string; result: CallToolResult };

export interface Conversation {
  conversationId: string;
  title: string | null;
  messages: AgentMessage[];
  runs: RunSummary[];
}

export type ToolSource = { type: "builtin" } | { type: "config" } | { type: "mcp"; server: string };
export type Policy = "always" | "ask" | "never";

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolInfo {
  name: string;
  title?: string;
  description?: string;
  category: string;
  source: ToolSource;
  enabled: boolean;
  policy: Policy;
  /** Where `policy` comes from; absent on servers older than the web UI. */
  policySource?: "setting" | "config" | "default";
  configuredPolicy: Policy;
  requiresApproval: boolean;
  inputSchema: JsonObject;
  outputSchema?: JsonObject;
  annotations?: ToolAnnotations;
}

export interface McpServerStatus {
  name: string;
  state: "connecting" | "ready" | "restarting" | "error" | "stopped" | string;
  transport: string;
  toolCount: number;
  tools: string[];
  lastError: string | null;
  stderrTail: string[];
  restarts: number;
  pid?: number;
  era?: string;
}

export interface PendingApproval extends PendingCall {
  runId: string;
  conversationId: string;
  step: number;
  requestedAt: string;
  startedBy: "serve" | "cli" | "library";
  model: string;
}

export interface ModelList {
  data: Array<{ name: string; default: boolean }>;
  default: string;
}

export interface Decision {
  callId: string;
  decision: "approve" | "deny";
  reason?: string;
  arguments?: JsonObject;
}
