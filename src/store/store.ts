import type { CallToolResult } from "@modelcontextprotocol/server";
import type { AgentMessage, AssistantMessage } from "../core/agent-message.js";
import type { MemoryStore } from "../core/memory-store.js";

export type { MemoryHit, MemorySearchOptions, MemoryStore, NoteRecord } from "../core/memory-store.js";

import { ToolbridgeError } from "../core/toolbridge-error.js";

export type { ApprovalPolicyValue, RunStatus, StopReason, ToolCallState } from "../core/run-status.js";

import type { ApprovalPolicyValue, RunStatus, StopReason, ToolCallState } from "../core/run-status.js";

export interface ApprovalRecord {
  policy: ApprovalPolicyValue;
  decision: "pending" | "approved" | "denied";
  /** "policy" for automatic decisions, otherwise who decided (CLI user, API token name …). */
  decidedBy: string | null;
  decidedAt: string | null;
  reason: string | null;
  /** Set when the call was approved with edited arguments: what the model originally asked for. */
  originalArguments: Record<string, unknown> | null;
}

export interface ToolCallRecord {
  runId: string;
  id: string;
  step: number;
  position: number;
  name: string;
  /** The arguments that run (edited ones when a person changed them). */
  arguments: Record<string, unknown>;
  state: ToolCallState;
  /** The executor's status (`ok`, `tool-error`, `dry-run`, …) or `invalid` / `denied` / `refused` / `interrupted`. */
  outcome: string | null;
  result: CallToolResult | null;
  approval: ApprovalRecord | null;
  startedAt: string | null;
  finishedAt: string | null;
  durationMs: number | null;
}

export interface RunRecord {
  id: string;
  conversationId: string;
  status: RunStatus;
  stopReason: StopReason | null;
  answer: string | null;
  error: string | null;
  model: string;
  /** Whatever the caller needs to rebuild the run's agent in another process (the CLI keeps its flags here). */
  options: Record<string, unknown>;
  limits: Record<string, number>;
  stepCount: number;
  toolCallCount: number;
  consecutiveFailures: number;
  repairs: number;
  /** Time spent running (model + tools), excluding time paused for approval. */
  activeMs: number;
  /** `host:pid` of the process driving the run; null when nobody is. */
  owner: string | null;
  /**
   * Until when the owner's lease holds (ISO time), for stores whose runs are owned by a lease (PostgreSQL: owners on
   * other hosts, see RunLeases); absent for stores where the owner is a process of this host.
   */
  leaseUntil?: string | null;
  /**
   * Someone asked for the run to be stopped (RunStore.requestCancel): whoever drives it aborts it and ends it
   * `aborted`. Kept once the run has ended (who asked, when, why). Absent on stores that do not keep requests.
   */
  cancelRequest?: CancelRequest | null;
  createdAt: string;
  updatedAt: string;
}

/** A request to stop a run, recorded on the run for the process that drives it (which may be another instance). */
export interface CancelRequest {
  by: string;
  reason: string;
  at: string;
}

export type RunPatch = Partial<
  Pick<
    RunRecord,
    | "status"
    | "stopReason"
    | "answer"
    | "error"
    | "stepCount"
    | "toolCallCount"
    | "consecutiveFailures"
    | "repairs"
    | "activeMs"
    | "owner"
  >
>;

export interface NewRun {
  id: string;
  conversationId: string;
  /** Creates the conversation when it does not exist yet. */
  conversationTitle?: string;
  model: string;
  options: Record<string, unknown>;
  limits: Record<string, number>;
  owner: string;
  /** Messages to add before the run starts (system prompt of a new conversation, the user's prompt). */
  messages: AgentMessage[];
}

export interface NewToolCall {
  id: string;
  position: number;
  name: string;
  arguments: Record<string, unknown>;
  /**
   * `executing`: the call is claimed as it is recorded — the caller starts its handler once the turn is committed.
   * Recording it is the claim: the turn's insert fails if the call already exists, so no other process can hold it.
   */
  state: "invalid" | "pending" | "approved" | "denied" | "refused" | "executing";
  outcome?: string;
  result?: CallToolResult;
  approval?: ApprovalRecord;
}

/** A call's end: executing → done / interrupted, with the result the model will see. */
export interface ToolCallFinish {
  callId: string;
  state: "done" | "interrupted";
  outcome: string;
  result: CallToolResult;
  durationMs: number | null;
}

/** Closing a step: its observation messages and the run's new counters (and status, when the run ends with it). */
export interface StepClose {
  messages: AgentMessage[];
  run: RunPatch;
}

export interface AuditEntry {
  actor: string;
  action: string;
  runId?: string;
  callId?: string;
  detail?: Record<string, unknown>;
}

export interface AuditRecord extends Required<Omit<AuditEntry, "runId" | "callId">> {
  id: number;
  at: string;
  runId: string | null;
  callId: string | null;
}

export interface CallDecision {
  callId: string;
  decision: "approved" | "denied";
  by: string;
  reason?: string;
  /** Edited arguments (already validated by the caller). */
  arguments?: Record<string, unknown>;
  /** For denials: the observation the model will see. */
  result?: CallToolResult;
}

export interface StepRecord {
  runId: string;
  step: number;
  finishReason: string | null;
  text: string;
  parseErrors: string[];
  finished: boolean;
  startedAt: string;
  finishedAt: string | null;
}

/** Thrown when a store operation finds the data in a state that forbids it (deciding a call twice, …). */
export class StoreConflictError extends ToolbridgeError {
  override name = "StoreConflictError";
}

/**
 * A write to a run this process no longer owns: its lease expired and another instance took the run over (or it never
 * held one). Nothing of the write was kept. The process must stop driving the run.
 */
export class RunFencedError extends StoreConflictError {
  override name = "RunFencedError";
}

/**
 * What a store shared by several server instances on several hosts adds (PostgresStore). A run is owned by a lease:
 * `createRun` and `claimRun` take it (with a new epoch, the fencing token), the store renews it while the process
 * lives (heartbeat), and every state write of the run checks the epoch, so a process whose lease expired and whose
 * run was taken over (paused, cut off from the database) writes nothing more: its writes throw RunFencedError.
 */
export interface RunLeases {
  /** How long a lease lasts without a heartbeat (ms); the heartbeat renews it every third of that. */
  readonly leaseMs: number;
  /**
   * Claim one run that needs a driver, skipping rows other instances are claiming (`FOR UPDATE SKIP LOCKED`): a paused
   * run with nothing pending any more (`resumable`, set by the decision that left nothing pending), or a running run
   * whose owner's lease expired. `withOption`: only runs whose `options` hold this key — those a driver of this kind
   * started and can rebuild (the server's runs, not the CLI's). Resolves to the run as claimed (`running`, owner
   * `owner`), or undefined.
   */
  claimNext(owner: string, withOption?: string): Promise<RunRecord | undefined>;
  /** `listener(runId)` when this process lost a run's lease: another instance took it over. Returns the unsubscribe. */
  onLost(listener: (runId: string) => void): () => void;
  /** `listener()` when a run may have become claimable (a hint: poll with claimNext as well). */
  onClaimable(listener: () => void): () => void;
  /**
   * `listener(runId)` when any instance recorded a cancel request for the run (RunStore.requestCancel): a hint, sent
   * when the request commits; the instance driving the run also polls with listCancelRequests.
   */
  onCancelRequested(listener: (runId: string) => void): () => void;
  /**
   * This process's driver of the run has stopped: stop renewing its lease (still held when a failure left the run
   * running, so that another instance takes it over once it expires) and forget that it was lost.
   */
  forget(runId: string): void;
  /**
   * Give up every run this process drives, at once, for another instance to take over (a graceful shutdown): from
   * then on nothing more is written for them here, and their leases end now instead of expiring later.
   */
  handOver(): Promise<void>;
}

/**
 * Persistence of conversations, runs, steps, tool calls, approvals and the audit log: what the agent loop needs, and
 * all it needs. Every method that writes resolves only after its transaction is committed, so whatever a caller
 * reports afterwards survives a crash. Methods are async so that a PostgreSQL store can implement the same interface;
 * each composite method is one transaction. Implementations: SqliteStore (default for the CLI), InMemoryStore (the
 * library's default: pure TypeScript, nothing survives the process), PostgresStore (several instances on several
 * hosts; adds `leases`); all pass test/store/run-store.contract.ts.
 */
export interface RunStore {
  readonly location: string;
  /** Present when runs are owned by leases (several instances on several hosts); see RunLeases. */
  readonly leases?: RunLeases;

  createRun(run: NewRun): Promise<RunRecord>;
  getRun(id: string): Promise<RunRecord | undefined>;
  listRuns(options?: { status?: RunStatus; limit?: number }): Promise<RunRecord[]>;
  updateRun(id: string, patch: RunPatch): Promise<void>;
  /**
   * Take over a run: sets owner and status `running` only if the run is in one of `fromStatuses` and its current
   * owner is `expectedOwner` (null = nobody) — and, with leases, only if that owner's lease has expired. Returns false
   * when someone else got there first.
   */
  claimRun(
    id: string,
    owner: string,
    fromStatuses: RunStatus[],
    expectedOwner: string | null,
  ): Promise<boolean>;

  /**
   * Ask whoever drives the run to stop it, whichever process that is: in one transaction (under the run's row lock,
   * as every write of the run), record the request on a run that is not over — a second request keeps the first —
   * with an audit entry (`cancel-requested`, by whom, why); a store shared by several instances tells them
   * (RunLeases.onCancelRequested). Resolves to the run as it is afterwards (a run already over is returned unchanged);
   * undefined when there is no such run. Absent: the store keeps no requests (a run is cancelled only where it runs).
   */
  requestCancel?(runId: string, request: { by: string; reason: string }): Promise<RunRecord | undefined>;
  /** Which of these runs carry a cancel request: one read for every run a process drives. */
  listCancelRequests?(runIds: readonly string[]): Promise<Map<string, CancelRequest>>;

  listMessages(conversationId: string): Promise<AgentMessage[]>;

  /**
   * One model turn, in one transaction: the assistant message, its calls (with any automatic approvals, claimed
   * ones as `executing`) and audit entries — and, with `close`, the step's end too (a turn with nothing to run).
   * Resolves to the calls as stored.
   */
  recordTurn(turn: {
    runId: string;
    conversationId: string;
    step: number;
    message: AssistantMessage;
    finishReason: string;
    calls: NewToolCall[];
    /** Text-protocol parse errors that belong to no call; they go back to the model when the step closes. */
    parseErrors: string[];
    audit: AuditEntry[];
    close?: StepClose;
  }): Promise<ToolCallRecord[]>;
  listSteps(runId: string): Promise<StepRecord[]>;
  listToolCalls(runId: string, step?: number): Promise<ToolCallRecord[]>;
  /**
   * Record decisions on pending calls, all or none: a decision on a call that is not pending throws
   * StoreConflictError and nothing is written.
   */
  decideToolCalls(runId: string, decisions: CallDecision[]): Promise<void>;
  /** approved → executing for several calls in one transaction; resolves to the ids claimed (only those may run). */
  claimToolCalls(runId: string, callIds: readonly string[]): Promise<string[]>;
  /** executing → done / interrupted, with the result. */
  finishToolCall(runId: string, callId: string, outcome: Omit<ToolCallFinish, "callId">): Promise<void>;
  /**
   * Close a step in one transaction: commit `results` (executing → done / interrupted; a call that is not executing
   * throws StoreConflictError and nothing is written), append the observation messages, update the run.
   */
  finishStep(
    step: StepClose & { runId: string; conversationId: string; step: number; results?: ToolCallFinish[] },
  ): Promise<void>;

  listAudit(runId?: string): Promise<AuditRecord[]>;

  close(): Promise<void>;
}

/** What the default store offers: runs and memory in one database (SQLite file, or in memory). */
export interface Store extends RunStore, MemoryStore {}
