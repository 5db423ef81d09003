import type { CallToolResult } from "@modelcontextprotocol/server";
import type Database from "better-sqlite3";
import type { AgentMessage } from "../core/agent-message.js";
import {
  openSqliteDatabase,
  readSchemaVersion,
  type SqliteStoreOptions,
  type StatementCache,
} from "./open-sqlite-database.js";
import {
  auditFromRow,
  json,
  memoryHitFromRow,
  messageFromRow,
  messageToColumns,
  parseJson,
  type Row,
  RUN_COLUMNS,
  runFromRow,
  stepFromRow,
  toolCallFromRow,
} from "./sql-rows.js";
import {
  type AuditEntry,
  type AuditRecord,
  type CallDecision,
  type CancelRequest,
  type MemoryHit,
  type MemorySearchOptions,
  type NewRun,
  type NewToolCall,
  type NoteRecord,
  type RunPatch,
  type RunRecord,
  type RunStatus,
  type StepRecord,
  type Store,
  StoreConflictError,
  type ToolCallFinish,
  type ToolCallRecord,
} from "./store.js";
import { toFtsQuery } from "./to-fts-query.js";

export { type SqliteStoreOptions, StoreOpenError } from "./open-sqlite-database.js";

const now = () => new Date().toISOString();

/**
 * The default store: one SQLite file through better-sqlite3, in WAL mode so readers (the CLI's `runs list`) never
 * block a running agent. better-sqlite3 is synchronous: each method's transaction is committed before its promise
 * resolves.
 */
export class SqliteStore implements Store {
  readonly db: Database.Database;
  /** Every statement by its SQL, prepared once and kept (keep-native-alive.ts). */
  readonly #stmt: StatementCache;
  /** `UPDATE runs` text per set of patched columns, so the statement cache is hit without rebuilding the SQL. */
  readonly #runUpdates = new Map<string, string>();
  /** One transaction wrapper for every write: `db.transaction()` per call costs more than the statements it runs. */
  readonly #transaction: Database.Transaction<(body: () => unknown) => unknown>;

  constructor(
    readonly location: string,
    options: SqliteStoreOptions = {},
  ) {
    const { db, statement } = openSqliteDatabase(location, options);
    this.db = db;
    this.#stmt = statement;
    this.#transaction = this.db.transaction((body: () => unknown) => body());
  }

  get schemaVersion(): number {
    return readSchemaVersion(this.#stmt);
  }

  /** IMMEDIATE: take the write lock up front, so two processes never interleave read-check-write sequences. */
  #write<T>(body: () => T): T {
    return this.#transaction.immediate(body) as T;
  }

  #insertMessage(
    conversationId: string,
    runId: string | null,
    step: number | null,
    message: AgentMessage,
    at: string,
    resultJson?: ReadonlyMap<CallToolResult, string>,
  ) {
    const { content, data } = messageToColumns(message, resultJson);
    const info = this.#stmt(
      "INSERT INTO messages (conversation_id, run_id, step, role, content, data, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ).run(conversationId, runId, step, message.role, content, data, at);
    // Only what people and the model said is searchable; tool output can be large and is not "memory".
    if ((message.role === "user" || message.role === "assistant") && content.trim() !== "") {
      this.#stmt("INSERT INTO memory_fts (kind, ref_id, title, body) VALUES ('message', ?, NULL, ?)").run(
        info.lastInsertRowid,
        content,
      );
    }
  }

  #audit(entry: AuditEntry, at: string): void {
    this.#stmt(
      "INSERT INTO audit_log (at, actor, action, run_id, call_id, detail) VALUES (?, ?, ?, ?, ?, ?)",
    ).run(at, entry.actor, entry.action, entry.runId ?? null, entry.callId ?? null, json(entry.detail ?? {}));
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    const at = now();
    this.#write(() => {
      this.#stmt("INSERT OR IGNORE INTO conversations (id, title, created_at) VALUES (?, ?, ?)").run(
        run.conversationId,
        run.conversationTitle ?? null,
        at,
      );
      this.#stmt(
        `INSERT INTO runs (id, conversation_id, status, model, options, limits, owner, created_at, updated_at)
         VALUES (?, ?, 'running', ?, ?, ?, ?, ?, ?)`,
      ).run(run.id, run.conversationId, run.model, json(run.options), json(run.limits), run.owner, at, at);
      for (const message of run.messages) this.#insertMessage(run.conversationId, run.id, null, message, at);
    });
    // What was just inserted, without reading it back.
    return {
      id: run.id,
      conversationId: run.conversationId,
      status: "running",
      stopReason: null,
      answer: null,
      error: null,
      model: run.model,
      options: run.options,
      limits: run.limits,
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
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const row = this.#stmt("SELECT * FROM runs WHERE id = ?").get(id) as Row | undefined;
    return row ? runFromRow(row) : undefined;
  }

  async listRuns(options: { status?: RunStatus; limit?: number } = {}): Promise<RunRecord[]> {
    const limit = options.limit ?? 50;
    const rows = (
      options.status
        ? this.#stmt("SELECT * FROM runs WHERE status = ? ORDER BY created_at DESC, id DESC LIMIT ?").all(
            options.status,
            limit,
          )
        : this.#stmt("SELECT * FROM runs ORDER BY created_at DESC, id DESC LIMIT ?").all(limit)
    ) as Row[];
    return rows.map(runFromRow);
  }

  async updateRun(id: string, patch: RunPatch): Promise<void> {
    this.#write(() => this.#updateRun(id, patch));
  }

  #updateRun(id: string, patch: RunPatch, at = now()): void {
    const keys = Object.keys(patch) as Array<keyof RunPatch>;
    if (keys.length === 0) return;
    const shape = keys.join(",");
    let sql = this.#runUpdates.get(shape);
    if (sql === undefined) {
      sql = `UPDATE runs SET ${keys.map((key) => `${RUN_COLUMNS[key]} = ?`).join(", ")}, updated_at = ? WHERE id = ?`;
      this.#runUpdates.set(shape, sql);
    }
    this.#stmt(sql).run(...keys.map((key) => patch[key] ?? null), at, id);
  }

  async claimRun(
    id: string,
    owner: string,
    fromStatuses: RunStatus[],
    expectedOwner: string | null,
  ): Promise<boolean> {
    return this.#write(() => {
      const row = this.#stmt("SELECT status, owner FROM runs WHERE id = ?").get(id) as Row | undefined;
      if (!row || !fromStatuses.includes(row.status as RunStatus)) return false;
      if (((row.owner as string | null) ?? null) !== expectedOwner) return false;
      // A paused run's `awaiting-approval` belongs to the pause: a running run has no stop reason yet, also when its
      // process is killed before it writes another (the crash left `running` + `awaiting-approval` behind).
      this.#stmt(
        "UPDATE runs SET status = 'running', stop_reason = NULL, owner = ?, updated_at = ? WHERE id = ?",
      ).run(owner, now(), id);
      return true;
    });
  }

  async requestCancel(
    runId: string,
    request: { by: string; reason: string },
  ): Promise<RunRecord | undefined> {
    const at = now();
    return this.#write(() => {
      const row = this.#stmt("SELECT status FROM runs WHERE id = ?").get(runId) as Row | undefined;
      if (!row) return undefined;
      if (row.status === "running" || row.status === "paused") {
        this.#stmt("UPDATE runs SET cancel_request = COALESCE(cancel_request, ?) WHERE id = ?").run(
          json({ ...request, at }),
          runId,
        );
        this.#audit(
          { actor: request.by, action: "cancel-requested", runId, detail: { reason: request.reason } },
          at,
        );
      }
      return runFromRow(this.#stmt("SELECT * FROM runs WHERE id = ?").get(runId) as Row);
    });
  }

  async listCancelRequests(runIds: readonly string[]): Promise<Map<string, CancelRequest>> {
    const found = new Map<string, CancelRequest>();
    if (runIds.length === 0) return found;
    const rows = this.#stmt(
      "SELECT id, cancel_request FROM runs WHERE id IN (SELECT value FROM json_each(?)) AND cancel_request IS NOT NULL",
    ).all(json(runIds)) as Row[];
    for (const row of rows) found.set(String(row.id), parseJson(row.cancel_request, {} as CancelRequest));
    return found;
  }

  async listMessages(conversationId: string): Promise<AgentMessage[]> {
    const rows = this.#stmt(
      "SELECT role, content, data FROM messages WHERE conversation_id = ? ORDER BY id",
    ).all(conversationId) as Row[];
    return rows.map(messageFromRow);
  }

  async recordTurn(turn: Parameters<Store["recordTurn"]>[0]): Promise<ToolCallRecord[]> {
    const at = now();
    this.#write(() => {
      const closed = turn.close !== undefined;
      this.#stmt(
        `INSERT INTO steps (run_id, step, finish_reason, text, parse_errors, finished, started_at, finished_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        turn.runId,
        turn.step,
        turn.finishReason,
        turn.message.content,
        json(turn.parseErrors),
        closed ? 1 : 0,
        at,
        closed ? at : null,
      );
      this.#insertMessage(turn.conversationId, turn.runId, turn.step, turn.message, at);
      for (const call of turn.calls) this.#insertCall(turn.runId, turn.step, call, at);
      for (const entry of turn.audit) this.#audit(entry, at);
      for (const message of turn.close?.messages ?? [])
        this.#insertMessage(turn.conversationId, turn.runId, turn.step, message, at);
      this.#updateRun(turn.runId, { stepCount: turn.step, ...turn.close?.run }, at);
    });
    return turn.calls.map((call) => {
      const final = call.result !== undefined;
      return {
        runId: turn.runId,
        id: call.id,
        step: turn.step,
        position: call.position,
        name: call.name,
        arguments: call.arguments,
        state: call.state,
        outcome: call.outcome ?? null,
        result: call.result ?? null,
        approval: call.approval ?? null,
        startedAt: call.state === "executing" ? at : null,
        finishedAt: final ? at : null,
        durationMs: null,
      };
    });
  }

  #insertCall(runId: string, step: number, call: NewToolCall, at: string): void {
    const final = call.result !== undefined;
    this.#stmt(
      `INSERT INTO tool_calls (run_id, id, step, position, name, arguments, state, outcome, result, started_at, finished_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      runId,
      call.id,
      step,
      call.position,
      call.name,
      json(call.arguments),
      call.state,
      call.outcome ?? null,
      final ? json(call.result) : null,
      call.state === "executing" ? at : null,
      final ? at : null,
    );
    if (call.approval) {
      const a = call.approval;
      this.#stmt(
        `INSERT INTO approvals (run_id, call_id, policy, decision, decided_by, decided_at, reason, original_arguments)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      ).run(
        runId,
        call.id,
        a.policy,
        a.decision,
        a.decidedBy,
        a.decidedAt,
        a.reason,
        a.originalArguments ? json(a.originalArguments) : null,
      );
    }
  }

  async listSteps(runId: string): Promise<StepRecord[]> {
    const rows = this.#stmt("SELECT * FROM steps WHERE run_id = ? ORDER BY step").all(runId) as Row[];
    return rows.map(stepFromRow);
  }

  async listToolCalls(runId: string, step?: number): Promise<ToolCallRecord[]> {
    const base = `SELECT c.*, a.policy, a.decision, a.decided_by, a.decided_at, a.reason, a.original_arguments
      FROM tool_calls c LEFT JOIN approvals a ON a.run_id = c.run_id AND a.call_id = c.id WHERE c.run_id = ?`;
    const rows = (
      step === undefined
        ? this.#stmt(`${base} ORDER BY c.step, c.position`).all(runId)
        : this.#stmt(`${base} AND c.step = ? ORDER BY c.position`).all(runId, step)
    ) as Row[];
    return rows.map(toolCallFromRow);
  }

  async decideToolCalls(runId: string, decisions: CallDecision[]): Promise<void> {
    const at = now();
    this.#write(() => {
      for (const d of decisions) {
        const row = this.#stmt("SELECT state, arguments FROM tool_calls WHERE run_id = ? AND id = ?").get(
          runId,
          d.callId,
        ) as Row | undefined;
        if (!row) throw new StoreConflictError(`Run ${runId} has no tool call ${d.callId}.`);
        if (row.state !== "pending") {
          throw new StoreConflictError(
            `Tool call ${d.callId} is not waiting for a decision (it is ${String(row.state)}).`,
          );
        }
        const edited = d.decision === "approved" && d.arguments !== undefined;
        if (d.decision === "approved") {
          this.#stmt(
            "UPDATE tool_calls SET state = 'approved', arguments = ? WHERE run_id = ? AND id = ?",
          ).run(edited ? json(d.arguments) : row.arguments, runId, d.callId);
        } else {
          this.#stmt(
            "UPDATE tool_calls SET state = 'denied', outcome = 'denied', result = ?, finished_at = ? WHERE run_id = ? AND id = ?",
          ).run(json(d.result ?? { content: [], isError: true }), at, runId, d.callId);
        }
        this.#stmt(
          `UPDATE approvals SET decision = ?, decided_by = ?, decided_at = ?, reason = ?, original_arguments = ?
           WHERE run_id = ? AND call_id = ?`,
        ).run(d.decision, d.by, at, d.reason ?? null, edited ? row.arguments : null, runId, d.callId);
        const detail: Record<string, unknown> = {};
        if (d.reason !== undefined) detail.reason = d.reason;
        if (edited) {
          detail.originalArguments = parseJson(row.arguments, {});
          detail.arguments = d.arguments;
        }
        this.#audit(
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
    });
  }

  async claimToolCalls(runId: string, callIds: readonly string[]): Promise<string[]> {
    if (callIds.length === 0) return [];
    const at = now();
    return this.#write(() => callIds.filter((id) => this.#claim(runId, id, at)));
  }

  #claim(runId: string, callId: string, at: string): boolean {
    const info = this.#stmt(
      "UPDATE tool_calls SET state = 'executing', started_at = ? WHERE run_id = ? AND id = ? AND state = 'approved'",
    ).run(at, runId, callId);
    return info.changes === 1;
  }

  async finishToolCall(
    runId: string,
    callId: string,
    outcome: Omit<ToolCallFinish, "callId">,
  ): Promise<void> {
    this.#finishCall(runId, { callId, ...outcome }, now());
  }

  /** Returns the result's JSON text, for the observation message that repeats it. */
  #finishCall(runId: string, finish: ToolCallFinish, at: string): string {
    const result = json(finish.result);
    const info = this.#stmt(
      `UPDATE tool_calls SET state = ?, outcome = ?, result = ?, finished_at = ?, duration_ms = ?
       WHERE run_id = ? AND id = ? AND state = 'executing'`,
    ).run(finish.state, finish.outcome, result, at, finish.durationMs, runId, finish.callId);
    if (info.changes !== 1)
      throw new StoreConflictError(`Tool call ${finish.callId} of run ${runId} was not executing.`);
    return result;
  }

  async finishStep(step: Parameters<Store["finishStep"]>[0]): Promise<void> {
    const at = now();
    this.#write(() => {
      let resultJson: Map<CallToolResult, string> | undefined;
      for (const finish of step.results ?? []) {
        resultJson ??= new Map();
        resultJson.set(finish.result, this.#finishCall(step.runId, finish, at));
      }
      for (const message of step.messages)
        this.#insertMessage(step.conversationId, step.runId, step.step, message, at, resultJson);
      this.#stmt("UPDATE steps SET finished = 1, finished_at = ? WHERE run_id = ? AND step = ?").run(
        at,
        step.runId,
        step.step,
      );
      this.#updateRun(step.runId, step.run, at);
    });
  }

  async listAudit(runId?: string): Promise<AuditRecord[]> {
    const rows = (
      runId === undefined
        ? this.#stmt("SELECT * FROM audit_log ORDER BY id").all()
        : this.#stmt("SELECT * FROM audit_log WHERE run_id = ? ORDER BY id").all(runId)
    ) as Row[];
    return rows.map(auditFromRow);
  }

  async saveNote(note: { title: string; content: string; tags?: string[] }): Promise<NoteRecord> {
    const at = now();
    const tags = note.tags ?? [];
    const id = this.#write(() => {
      const info = this.#stmt("INSERT INTO notes (title, content, tags, created_at) VALUES (?, ?, ?, ?)").run(
        note.title,
        note.content,
        json(tags),
        at,
      );
      this.#stmt("INSERT INTO memory_fts (kind, ref_id, title, body) VALUES ('note', ?, ?, ?)").run(
        info.lastInsertRowid,
        note.title,
        `${note.content}\n${tags.join(" ")}`,
      );
      return Number(info.lastInsertRowid);
    });
    return { id, title: note.title, content: note.content, tags, createdAt: at };
  }

  async searchMemory(query: string, options: MemorySearchOptions = {}): Promise<MemoryHit[]> {
    const fts = toFtsQuery(query);
    if (!fts) return [];
    const limit = Math.max(1, Math.min(options.limit ?? 5, 50));
    const kindFilter = options.kind ? "AND f.kind = ?" : "";
    const runFilter = options.excludeRun !== undefined ? "AND (m.run_id IS NULL OR m.run_id <> ?)" : "";
    const roles = options.roles ?? [];
    const roleFilter = options.roles
      ? `AND (f.kind = 'note' OR m.role IN (${roles.map(() => "?").join(", ") || "NULL"}))`
      : "";
    const sql = `SELECT f.kind, f.ref_id, f.title,
        snippet(memory_fts, 3, '[', ']', '…', 24) AS snippet,
        COALESCE(n.created_at, m.created_at) AS created_at, m.conversation_id, m.role
      FROM memory_fts f
      LEFT JOIN notes n ON f.kind = 'note' AND n.id = f.ref_id
      LEFT JOIN messages m ON f.kind = 'message' AND m.id = f.ref_id
      WHERE memory_fts MATCH ? ${kindFilter} ${runFilter} ${roleFilter}
      ORDER BY bm25(memory_fts, 0, 0, 2.0, 1.0) LIMIT ?`;
    const params: unknown[] = [
      fts,
      ...(options.kind ? [options.kind] : []),
      ...(options.excludeRun !== undefined ? [options.excludeRun] : []),
      ...roles,
      limit,
    ];
    const rows = this.#stmt(sql).all(...params) as Row[];
    return rows.map(memoryHitFromRow);
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}
