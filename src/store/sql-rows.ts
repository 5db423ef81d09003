import type { CallToolResult } from "@modelcontextprotocol/server";
import type { AgentMessage, AgentToolCall } from "../core/agent-message.js";
import type {
  ApprovalRecord,
  AuditRecord,
  CancelRequest,
  MemoryHit,
  RunPatch,
  RunRecord,
  RunStatus,
  StepRecord,
  ToolCallRecord,
} from "./store.js";

/**
 * Rows of the SQL stores (SQLite, PostgreSQL) ↔ their records: what each column holds and how JSON columns are read
 * back. Pure (no connection), so the mapping is tested without a database and the store classes hold only SQL and
 * transactions. Both stores' columns have the same names; PostgreSQL hands JSON columns back already parsed and its
 * times as ISO strings (postgres-connection.ts), so one mapping serves both.
 */
export type Row = Record<string, unknown>;

export const json = (value: unknown): string => JSON.stringify(value);

/** A JSON column's value (text to parse, or what the driver parsed already), or `fallback` when it is NULL. */
export const parseJson = <T>(text: unknown, fallback: T): T =>
  typeof text === "string"
    ? (JSON.parse(text) as T)
    : text === null || text === undefined
      ? fallback
      : (text as T);

/** The `runs` column of each patchable field. */
export const RUN_COLUMNS: Readonly<Record<keyof RunPatch, string>> = {
  status: "status",
  stopReason: "stop_reason",
  answer: "answer",
  error: "error",
  stepCount: "step_count",
  toolCallCount: "tool_call_count",
  consecutiveFailures: "consecutive_failures",
  repairs: "repairs",
  activeMs: "active_ms",
  owner: "owner",
};

export function runFromRow(row: Row): RunRecord {
  return {
    id: String(row.id),
    conversationId: String(row.conversation_id),
    status: row.status as RunStatus,
    // Databases written before claimRun cleared it hold `running` + `awaiting-approval` for a run killed after its
    // resume began; a running run has no stop reason, whatever an older row says.
    stopReason: row.status === "running" ? null : ((row.stop_reason as RunRecord["stopReason"]) ?? null),
    answer: (row.answer as string | null) ?? null,
    error: (row.error as string | null) ?? null,
    model: String(row.model),
    options: parseJson(row.options, {}),
    limits: parseJson(row.limits, {}),
    stepCount: Number(row.step_count),
    toolCallCount: Number(row.tool_call_count),
    consecutiveFailures: Number(row.consecutive_failures),
    repairs: Number(row.repairs),
    activeMs: Number(row.active_ms),
    owner: (row.owner as string | null) ?? null,
    ...("lease_until" in row ? { leaseUntil: (row.lease_until as string | null) ?? null } : {}),
    ...("cancel_request" in row
      ? { cancelRequest: parseJson<CancelRequest | null>(row.cancel_request, null) }
      : {}),
    createdAt: String(row.created_at),
    updatedAt: String(row.updated_at),
  };
}

/** A `tool_calls` row joined with its `approvals` row (NULL policy: the call needed no approval record). */
export function toolCallFromRow(row: Row): ToolCallRecord {
  const approval: ApprovalRecord | null =
    row.policy === null || row.policy === undefined
      ? null
      : {
          policy: row.policy as ApprovalRecord["policy"],
          decision: row.decision as ApprovalRecord["decision"],
          decidedBy: (row.decided_by as string | null) ?? null,
          decidedAt: (row.decided_at as string | null) ?? null,
          reason: (row.reason as string | null) ?? null,
          originalArguments: parseJson(row.original_arguments, null),
        };
  return {
    runId: String(row.run_id),
    id: String(row.id),
    step: Number(row.step),
    position: Number(row.position),
    name: String(row.name),
    arguments: parseJson(row.arguments, {}),
    state: row.state as ToolCallRecord["state"],
    outcome: (row.outcome as string | null) ?? null,
    result: parseJson<CallToolResult | null>(row.result, null),
    approval,
    startedAt: (row.started_at as string | null) ?? null,
    finishedAt: (row.finished_at as string | null) ?? null,
    durationMs: row.duration_ms === null || row.duration_ms === undefined ? null : Number(row.duration_ms),
  };
}

/**
 * A message's `content` and `data` columns: the text people and the model said in `content` (it is what is searched),
 * the rest as JSON in `data`. A tool message whose result was just serialized (`resultJson`) reuses that text.
 */
export function messageToColumns(
  message: AgentMessage,
  resultJson?: ReadonlyMap<CallToolResult, string>,
): { content: string; data: string | null } {
  if (message.role === "tool") {
    const known = resultJson?.get(message.result);
    return {
      content: "",
      data:
        known === undefined
          ? json({ callId: message.callId, name: message.name, result: message.result })
          : `{"callId":${json(message.callId)},"name":${json(message.name)},"result":${known}}`,
    };
  }
  if (message.role !== "assistant") return { content: message.content, data: null };
  const data: Record<string, unknown> = {};
  if (message.reasoning !== undefined) data.reasoning = message.reasoning;
  if (message.toolCalls?.length) data.toolCalls = message.toolCalls;
  return { content: message.content, data: json(data) };
}

export function messageFromRow(row: Row): AgentMessage {
  const role = row.role as AgentMessage["role"];
  const content = String(row.content);
  const data = parseJson<Record<string, unknown>>(row.data, {});
  switch (role) {
    case "system":
    case "user":
      return { role, content };
    case "assistant": {
      const message: AgentMessage = { role, content };
      if (typeof data.reasoning === "string") message.reasoning = data.reasoning;
      if (Array.isArray(data.toolCalls)) message.toolCalls = data.toolCalls as AgentToolCall[];
      return message;
    }
    case "tool":
      return {
        role,
        callId: String(data.callId),
        name: String(data.name),
        result: data.result as CallToolResult,
      };
  }
}

export function stepFromRow(row: Row): StepRecord {
  return {
    runId: String(row.run_id),
    step: Number(row.step),
    finishReason: (row.finish_reason as string | null) ?? null,
    text: String(row.text),
    parseErrors: parseJson(row.parse_errors, []),
    finished: row.finished === true || Number(row.finished) === 1,
    startedAt: String(row.started_at),
    finishedAt: (row.finished_at as string | null) ?? null,
  };
}

export function auditFromRow(row: Row): AuditRecord {
  return {
    id: Number(row.id),
    at: String(row.at),
    actor: String(row.actor),
    action: String(row.action),
    runId: (row.run_id as string | null) ?? null,
    callId: (row.call_id as string | null) ?? null,
    detail: parseJson(row.detail, {}),
  };
}

/** A row of the memory search (memory_fts joined with its note or message). */
export function memoryHitFromRow(row: Row): MemoryHit {
  return {
    kind: row.kind as MemoryHit["kind"],
    id: Number(row.ref_id),
    title: (row.title as string | null) ?? null,
    conversationId: (row.conversation_id as string | null) ?? null,
    role: (row.role as string | null) ?? null,
    snippet: String(row.snippet),
    createdAt: String(row.created_at ?? ""),
  };
}
