import MiniSearch from "minisearch";
import type { AgentMessage } from "../core/agent-message.js";
import type { MemoryHit, MemorySearchOptions, NoteRecord } from "../core/memory-store.js";
import {
  type AuditEntry,
  type AuditRecord,
  type CallDecision,
  type CancelRequest,
  type NewRun,
  type NewToolCall,
  type RunPatch,
  type RunRecord,
  type RunStatus,
  type StepRecord,
  type Store,
  StoreConflictError,
  type ToolCallFinish,
  type ToolCallRecord,
} from "./store.js";

const now = () => new Date().toISOString();
/** Stored values are copies, as a database would keep them: later changes to the caller's objects change nothing. */
const copy = <T>(value: T): T => (value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T));

interface StoredMessage {
  id: number;
  conversationId: string;
  message: AgentMessage;
  createdAt: string;
}

interface SearchDocument {
  /** `note:<id>` or `message:<id>`: MiniSearch needs one id space. */
  key: string;
  kind: "note" | "message";
  ref: number;
  title: string;
  body: string;
  /** A message's run (null for notes and messages outside a run), for searches that leave a run out. */
  runId: string | null;
  /** A message's role (null for notes), for searches held to some roles. */
  role: string | null;
}

const SNIPPET_WORDS = 24;

/**
 * A store that keeps everything in the process's memory: the library's default when no store is given, so a program
 * that only wants the loop loads no native addon and writes no file. It honours the whole RunStore contract (the same
 * claims, conflicts and all-or-nothing batches as SqliteStore: both pass test/store/run-store.contract.ts); runs are
 * lost when the process ends, so a paused run can only be resumed by the same process.
 */
export class InMemoryStore implements Store {
  readonly location = ":memory:";
  readonly #conversations = new Map<string, { title: string | null; createdAt: string }>();
  readonly #messages: StoredMessage[] = [];
  readonly #runs = new Map<string, RunRecord>();
  readonly #steps = new Map<string, StepRecord[]>();
  /** Per run, in (step, position) order. */
  readonly #calls = new Map<string, ToolCallRecord[]>();
  readonly #audit: AuditRecord[] = [];
  readonly #notes = new Map<number, NoteRecord>();
  readonly #search = new MiniSearch<SearchDocument>({
    idField: "key",
    fields: ["title", "body"],
    storeFields: ["kind", "ref", "title", "body", "runId", "role"],
    searchOptions: { boost: { title: 2 }, prefix: true, fuzzy: 0.1, combineWith: "OR" },
  });
  #nextMessageId = 1;
  #nextNoteId = 1;

  #addMessage(conversationId: string, runId: string | null, message: AgentMessage, at: string): void {
    const id = this.#nextMessageId++;
    this.#messages.push({ id, conversationId, message: copy(message), createdAt: at });
    // Only what people and the model said is searchable, as in SqliteStore.
    if ((message.role === "user" || message.role === "assistant") && message.content.trim() !== "")
      this.#search.add({
        key: `message:${id}`,
        kind: "message",
        ref: id,
        title: "",
        body: message.content,
        runId,
        role: message.role,
      });
  }

  #addAudit(entry: AuditEntry, at: string): void {
    this.#audit.push({
      id: this.#audit.length + 1,
      at,
      actor: entry.actor,
      action: entry.action,
      runId: entry.runId ?? null,
      callId: entry.callId ?? null,
      detail: copy(entry.detail ?? {}),
    });
  }

  #run(id: string): RunRecord {
    const run = this.#runs.get(id);
    if (!run) throw new StoreConflictError(`Run ${id} does not exist.`);
    return run;
  }

  #applyPatch(id: string, patch: RunPatch, at: string): void {
    const run = this.#runs.get(id);
    if (!run) return; // as an UPDATE of no row
    Object.assign(run, copy(patch), { updatedAt: at });
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    if (this.#runs.has(run.id)) throw new StoreConflictError(`Run ${run.id} already exists.`);
    const at = now();
    if (!this.#conversations.has(run.conversationId))
      this.#conversations.set(run.conversationId, { title: run.conversationTitle ?? null, createdAt: at });
    const record: RunRecord = {
      id: run.id,
      conversationId: run.conversationId,
      status: "running",
      stopReason: null,
      answer: null,
      error: null,
      model: run.model,
      options: copy(run.options),
      limits: copy(run.limits),
      stepCount: 0,
      toolCallCount: 0,
      consecutiveFailures: 0,
      repairs: 0,
      activeMs: 0,
      owner: run.owner,
      cancelRequest: null,
      createdAt: at,
      updatedAt: at,
    };
    this.#runs.set(run.id, record);
    this.#steps.set(run.id, []);
    this.#calls.set(run.id, []);
    for (const message of run.messages) this.#addMessage(run.conversationId, run.id, message, at);
    return copy(record);
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    return copy(this.#runs.get(id));
  }

  async listRuns(options: { status?: RunStatus; limit?: number } = {}): Promise<RunRecord[]> {
    const runs = [...this.#runs.values()].filter((r) => !options.status || r.status === options.status);
    // Newest first, as SqliteStore orders them (created_at DESC, id DESC).
    runs.sort((a, b) =>
      a.createdAt === b.createdAt ? (a.id < b.id ? 1 : -1) : a.createdAt < b.createdAt ? 1 : -1,
    );
    return copy(runs.slice(0, options.limit ?? 50));
  }

  async updateRun(id: string, patch: RunPatch): Promise<void> {
    this.#applyPatch(id, patch, now());
  }

  async claimRun(
    id: string,
    owner: string,
    fromStatuses: RunStatus[],
    expectedOwner: string | null,
  ): Promise<boolean> {
    const run = this.#runs.get(id);
    if (!run || !fromStatuses.includes(run.status) || run.owner !== expectedOwner) return false;
    Object.assign(run, { status: "running", owner, updatedAt: now() });
    return true;
  }

  async requestCancel(
    runId: string,
    request: { by: string; reason: string },
  ): Promise<RunRecord | undefined> {
    const run = this.#runs.get(runId);
    if (!run) return undefined;
    if (run.status === "running" || run.status === "paused") {
      const at = now();
      run.cancelRequest ??= { ...request, at };
      this.#addAudit(
        { actor: request.by, action: "cancel-requested", runId, detail: { reason: request.reason } },
        at,
      );
    }
    return copy(run);
  }

  async listCancelRequests(runIds: readonly string[]): Promise<Map<string, CancelRequest>> {
    const found = new Map<string, CancelRequest>();
    for (const id of runIds) {
      const request = this.#runs.get(id)?.cancelRequest;
      if (request) found.set(id, copy(request));
    }
    return found;
  }

  async listMessages(conversationId: string): Promise<AgentMessage[]> {
    return this.#messages.filter((m) => m.conversationId === conversationId).map((m) => copy(m.message));
  }

  async recordTurn(turn: Parameters<Store["recordTurn"]>[0]): Promise<ToolCallRecord[]> {
    // Check everything first, so that a turn that cannot be recorded writes nothing (one transaction).
    this.#run(turn.runId);
    const steps = this.#steps.get(turn.runId) as StepRecord[];
    const calls = this.#calls.get(turn.runId) as ToolCallRecord[];
    if (steps.some((s) => s.step === turn.step))
      throw new StoreConflictError(`Step ${turn.step} of run ${turn.runId} is already recorded.`);
    const ids = new Set(calls.map((c) => c.id));
    for (const call of turn.calls) {
      if (ids.has(call.id))
        throw new StoreConflictError(`Tool call ${call.id} of run ${turn.runId} is already recorded.`);
      ids.add(call.id);
    }
    const at = now();
    const closed = turn.close !== undefined;
    steps.push({
      runId: turn.runId,
      step: turn.step,
      finishReason: turn.finishReason,
      text: turn.message.content,
      parseErrors: [...turn.parseErrors],
      finished: closed,
      startedAt: at,
      finishedAt: closed ? at : null,
    });
    this.#addMessage(turn.conversationId, turn.runId, turn.message, at);
    const records = turn.calls.map((call) => toRecord(turn.runId, turn.step, call, at));
    calls.push(...records.map(copy));
    calls.sort((a, b) => a.step - b.step || a.position - b.position);
    for (const entry of turn.audit) this.#addAudit(entry, at);
    for (const message of turn.close?.messages ?? [])
      this.#addMessage(turn.conversationId, turn.runId, message, at);
    this.#applyPatch(turn.runId, { stepCount: turn.step, ...turn.close?.run }, at);
    return records;
  }

  async listSteps(runId: string): Promise<StepRecord[]> {
    return copy(this.#steps.get(runId) ?? []);
  }

  async listToolCalls(runId: string, step?: number): Promise<ToolCallRecord[]> {
    const calls = this.#calls.get(runId) ?? [];
    return copy(step === undefined ? calls : calls.filter((c) => c.step === step));
  }

  #call(runId: string, callId: string): ToolCallRecord | undefined {
    return this.#calls.get(runId)?.find((c) => c.id === callId);
  }

  async decideToolCalls(runId: string, decisions: CallDecision[]): Promise<void> {
    for (const d of decisions) {
      const call = this.#call(runId, d.callId);
      if (!call) throw new StoreConflictError(`Run ${runId} has no tool call ${d.callId}.`);
      if (call.state !== "pending")
        throw new StoreConflictError(
          `Tool call ${d.callId} is not waiting for a decision (it is ${call.state}).`,
        );
    }
    const seen = new Set<string>();
    for (const d of decisions) {
      // SqliteStore finds the second decision on a call no longer pending; say the same.
      if (seen.has(d.callId))
        throw new StoreConflictError(`Tool call ${d.callId} is not waiting for a decision (it is decided).`);
      seen.add(d.callId);
    }
    const at = now();
    for (const d of decisions) {
      const call = this.#call(runId, d.callId) as ToolCallRecord;
      const edited = d.decision === "approved" && d.arguments !== undefined;
      const original = call.arguments;
      if (d.decision === "approved") {
        call.state = "approved";
        if (edited) call.arguments = copy(d.arguments as Record<string, unknown>);
      } else {
        call.state = "denied";
        call.outcome = "denied";
        call.result = copy(d.result ?? { content: [], isError: true });
        call.finishedAt = at;
      }
      if (call.approval) {
        Object.assign(call.approval, {
          decision: d.decision,
          decidedBy: d.by,
          decidedAt: at,
          reason: d.reason ?? null,
          originalArguments: edited ? original : null,
        });
      }
      const detail: Record<string, unknown> = {};
      if (d.reason !== undefined) detail.reason = d.reason;
      if (edited) {
        detail.originalArguments = original;
        detail.arguments = d.arguments;
      }
      this.#addAudit(
        {
          actor: d.by,
          action: edited ? "approve-edited" : d.decision === "approved" ? "approve" : "deny",
          runId,
          callId: d.callId,
          detail,
        },
        at,
      );
    }
  }

  async claimToolCalls(runId: string, callIds: readonly string[]): Promise<string[]> {
    const at = now();
    return callIds.filter((id) => {
      const call = this.#call(runId, id);
      if (call?.state !== "approved") return false;
      call.state = "executing";
      call.startedAt = at;
      return true;
    });
  }

  #checkExecuting(runId: string, callId: string): ToolCallRecord {
    const call = this.#call(runId, callId);
    if (call?.state !== "executing")
      throw new StoreConflictError(`Tool call ${callId} of run ${runId} was not executing.`);
    return call;
  }

  #finish(call: ToolCallRecord, finish: Omit<ToolCallFinish, "callId">, at: string): void {
    Object.assign(call, {
      state: finish.state,
      outcome: finish.outcome,
      result: copy(finish.result),
      finishedAt: at,
      durationMs: finish.durationMs,
    });
  }

  async finishToolCall(
    runId: string,
    callId: string,
    outcome: Omit<ToolCallFinish, "callId">,
  ): Promise<void> {
    this.#finish(this.#checkExecuting(runId, callId), outcome, now());
  }

  async finishStep(step: Parameters<Store["finishStep"]>[0]): Promise<void> {
    const finishing = (step.results ?? []).map((r) => this.#checkExecuting(step.runId, r.callId));
    const at = now();
    for (const [i, call] of finishing.entries()) this.#finish(call, step.results?.[i] as ToolCallFinish, at);
    for (const message of step.messages) this.#addMessage(step.conversationId, step.runId, message, at);
    const record = this.#steps.get(step.runId)?.find((s) => s.step === step.step);
    if (record) Object.assign(record, { finished: true, finishedAt: at });
    this.#applyPatch(step.runId, step.run, at);
  }

  async listAudit(runId?: string): Promise<AuditRecord[]> {
    return copy(runId === undefined ? this.#audit : this.#audit.filter((a) => a.runId === runId));
  }

  async saveNote(note: { title: string; content: string; tags?: string[] }): Promise<NoteRecord> {
    const record: NoteRecord = {
      id: this.#nextNoteId++,
      title: note.title,
      content: note.content,
      tags: [...(note.tags ?? [])],
      createdAt: now(),
    };
    this.#notes.set(record.id, record);
    this.#search.add({
      key: `note:${record.id}`,
      kind: "note",
      ref: record.id,
      title: note.title,
      body: `${note.content}\n${record.tags.join(" ")}`,
      runId: null,
      role: null,
    });
    return copy(record);
  }

  async searchMemory(query: string, options: MemorySearchOptions = {}): Promise<MemoryHit[]> {
    if (!/[\p{L}\p{N}_]/u.test(query)) return [];
    const limit = Math.max(1, Math.min(options.limit ?? 5, 50));
    const results = this.#search.search(query, {
      filter: (r) =>
        (options.kind === undefined || r.kind === options.kind) &&
        (options.excludeRun === undefined || r.runId !== options.excludeRun) &&
        (options.roles === undefined || r.kind === "note" || options.roles.includes(r.role)),
    });
    return results.slice(0, limit).map((r) => {
      const stored = r as unknown as SearchDocument & { terms: string[] };
      const message = stored.kind === "message" ? this.#messages.find((m) => m.id === stored.ref) : undefined;
      const createdAt = stored.kind === "note" ? this.#notes.get(stored.ref)?.createdAt : message?.createdAt;
      return {
        kind: stored.kind,
        id: stored.ref,
        title: stored.kind === "note" ? stored.title : null,
        conversationId: message?.conversationId ?? null,
        role: message?.message.role ?? null,
        snippet: snippet(stored.body, stored.terms),
        createdAt: createdAt ?? "",
      };
    });
  }

  async close(): Promise<void> {}
}

function toRecord(runId: string, step: number, call: NewToolCall, at: string): ToolCallRecord {
  const final = call.result !== undefined;
  return {
    runId,
    id: call.id,
    step,
    position: call.position,
    name: call.name,
    arguments: copy(call.arguments),
    state: call.state,
    outcome: call.outcome ?? null,
    result: copy(call.result) ?? null,
    approval: copy(call.approval) ?? null,
    startedAt: call.state === "executing" ? at : null,
    finishedAt: final ? at : null,
    durationMs: null,
  };
}

/** Up to SNIPPET_WORDS words around the first match, matches in [brackets], like SqliteStore's FTS snippet. */
function snippet(body: string, terms: readonly string[]): string {
  const words = body.split(/\s+/).filter(Boolean);
  const matches = (word: string) => {
    const plain = word.toLowerCase().replace(/[^\p{L}\p{N}_]/gu, "");
    return terms.some((t) => plain.startsWith(t));
  };
  const first = Math.max(0, words.findIndex(matches));
  const start = Math.max(0, first - Math.floor(SNIPPET_WORDS / 3));
  const shown = words.slice(start, start + SNIPPET_WORDS).map((w) => (matches(w) ? `[${w}]` : w));
  return `${start > 0 ? "…" : ""}${shown.join(" ")}${start + SNIPPET_WORDS < words.length ? "…" : ""}`;
}
