import type { AgentMessage } from "../core/agent-message.js";
import type { PostgresConnection, Queryable } from "./postgres-connection.js";
import type { PostgresLeases } from "./postgres-leases.js";
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
import { searchWords } from "./to-fts-query.js";

const now = () => new Date().toISOString();

/** PostgreSQL's text cannot hold U+0000 (SQLite's can): a model or tool that writes one gets U+FFFD there instead. */
const text = (value: string): string =>
  value.includes("\u0000") ? value.replaceAll("\u0000", "\uFFFD") : value;
const textOrNull = (value: string | null | undefined): string | null =>
  value === null || value === undefined ? null : text(value);

/** A patched column's value as a parameter. */
function columnValue(key: keyof RunPatch, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  return typeof value === "string" && (key === "answer" || key === "error") ? text(value) : value;
}

export interface PostgresStoreParts {
  connection: PostgresConnection;
  leases: PostgresLeases;
  /** `{S}` → the quoted schema name. */
  sql: (text: string) => string;
  /** NOTIFY channel: a run may have become claimable (its payload: the run id). */
  claimableChannel: string;
  /** NOTIFY channel: a cancel request was recorded for a run (its payload: the run id). */
  cancelChannel: string;
  location: string;
  /** Closes the whole database (connection, notifications, event log): `store.close()` is how most callers end it. */
  close: () => Promise<void>;
}

/**
 * The Store on PostgreSQL, for several server instances (on several hosts) sharing one database: the same contract
 * as SqliteStore (test/store/run-store.contract.ts), plus runs owned by leases (`leases`, see RunLeases and
 * postgres-leases.ts). Every write is one transaction through PostgresConnection.tx (retried when the server
 * restarts before it commits); every state write of a run is fenced by this process's epoch for it. Opened through
 * PostgresDatabase (postgres-database.ts), which runs the migrations and owns the connection.
 *
 * Decisions are taken by whichever instance receives them: a conditional update per call (a call no longer `pending`
 * throws StoreConflictError naming who decided it); in the same transaction, when the run is paused and nothing is
 * pending any more, the run becomes `resumable` and the claimable channel is notified, so some instance resumes it.
 */
export class PostgresStore implements Store {
  readonly location: string;
  readonly leases: PostgresLeases;
  readonly #db: PostgresConnection;
  readonly #sql: (text: string) => string;
  readonly #claimableChannel: string;
  readonly #cancelChannel: string;
  readonly #runUpdates = new Map<string, string>();
  readonly #close: () => Promise<void>;

  constructor(parts: PostgresStoreParts) {
    this.#close = parts.close;
    this.location = parts.location;
    this.#db = parts.connection;
    this.leases = parts.leases;
    this.#sql = parts.sql;
    this.#claimableChannel = parts.claimableChannel;
    this.#cancelChannel = parts.cancelChannel;
  }

  async #insertMessage(
    client: Queryable,
    conversationId: string,
    runId: string | null,
    step: number | null,
    message: AgentMessage,
    at: string,
  ): Promise<void> {
    const { content, data } = messageToColumns(message);
    await client.query(
      this.#sql(
        "INSERT INTO {S}.messages (conversation_id, run_id, step, role, content, data, created_at) VALUES ($1, $2, $3, $4, $5, $6::json, $7)",
      ),
      [conversationId, runId, step, message.role, text(content), data, at],
    );
  }

  async #audit(client: Queryable, entry: AuditEntry, at: string): Promise<void> {
    await client.query(
      this.#sql(
        "INSERT INTO {S}.audit_log (at, actor, action, run_id, call_id, detail) VALUES ($1, $2, $3, $4, $5, $6::json)",
      ),
      [at, entry.actor, entry.action, entry.runId ?? null, entry.callId ?? null, json(entry.detail ?? {})],
    );
  }

  async createRun(run: NewRun): Promise<RunRecord> {
    const at = now();
    const leaseUntil = await this.#db.tx(async (client) => {
      await client.query(
        this.#sql(
          "INSERT INTO {S}.conversations (id, title, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
        ),
        [run.conversationId, textOrNull(run.conversationTitle), at],
      );
      const { rows } = await client.query(
        this.#sql(
          `INSERT INTO {S}.runs (id, conversation_id, status, model, options, limits, owner, epoch, lease_until, created_at, updated_at)
           VALUES ($1, $2, 'running', $3, $4::json, $5::json, $6, 1, now() + $7::interval, $8, $8)
           RETURNING lease_until`,
        ),
        [
          run.id,
          run.conversationId,
          run.model,
          json(run.options),
          json(run.limits),
          run.owner,
          this.leases.interval,
          at,
        ],
      );
      for (const message of run.messages)
        await this.#insertMessage(client, run.conversationId, run.id, null, message, at);
      return String(rows[0]?.lease_until);
    });
    this.leases.hold(run.id, 1);
    return {
      id: run.id,
      conversationId: run.conversationId,
      status: "running",
      stopReason: null,
      answer: null,
      error: null,
      model: run.model,
      options: structuredClone(run.options),
      limits: { ...run.limits },
      stepCount: 0,
      toolCallCount: 0,
      consecutiveFailures: 0,
      repairs: 0,
      activeMs: 0,
      owner: run.owner,
      leaseUntil,
      cancelRequest: null,
      createdAt: at,
      updatedAt: at,
    };
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const [row] = await this.#db.query(this.#sql("SELECT * FROM {S}.runs WHERE id = $1"), [id]);
    return row ? runFromRow(row) : undefined;
  }

  async listRuns(options: { status?: RunStatus; limit?: number } = {}): Promise<RunRecord[]> {
    const limit = options.limit ?? 50;
    const rows = options.status
      ? await this.#db.query(
          this.#sql("SELECT * FROM {S}.runs WHERE status = $1 ORDER BY created_at DESC, id DESC LIMIT $2"),
          [options.status, limit],
        )
      : await this.#db.query(this.#sql("SELECT * FROM {S}.runs ORDER BY created_at DESC, id DESC LIMIT $1"), [
          limit,
        ]);
    return rows.map(runFromRow);
  }

  async updateRun(id: string, patch: RunPatch): Promise<void> {
    const at = now();
    await this.#db.tx(async (client) => {
      await this.leases.fence(client, id, at);
      await this.#updateRun(client, id, patch, at);
    });
    if (patch.owner === null) this.leases.release(id);
  }

  /**
   * The run's columns in `patch`. Giving the run up (owner null) ends the lease; pausing with nothing pending any
   * more (a decision arrived while the run was on its way to the pause) makes it resumable at once.
   */
  async #updateRun(client: Queryable, id: string, patch: RunPatch, at: string): Promise<void> {
    const keys = Object.keys(patch) as Array<keyof RunPatch>;
    if (keys.length === 0) return;
    const shape = keys.join(",");
    let sql = this.#runUpdates.get(shape);
    if (sql === undefined) {
      const sets = keys.map((key, i) => `${RUN_COLUMNS[key]} = $${i + 3}`);
      // SET's right-hand sides read the row as it was: the new owner is the parameter.
      const owner = keys.indexOf("owner");
      if (owner >= 0)
        sets.push(`lease_until = CASE WHEN $${owner + 3}::text IS NULL THEN NULL ELSE lease_until END`);
      sql = this.#sql(`UPDATE {S}.runs SET ${[...sets, "updated_at = $2"].join(", ")} WHERE id = $1`);
      this.#runUpdates.set(shape, sql);
    }
    await client.query(sql, [id, at, ...keys.map((key) => columnValue(key, patch[key]))]);
    if (patch.status === "paused") await this.#markResumable(client, id);
  }

  /** A paused run with no pending call left becomes resumable, and the instances hear of it (at commit). */
  async #markResumable(client: Queryable, runId: string): Promise<void> {
    const { rowCount } = await client.query(
      this.#sql(
        `UPDATE {S}.runs SET resumable = true
         WHERE id = $1 AND status = 'paused' AND owner IS NULL
           AND NOT EXISTS (SELECT 1 FROM {S}.tool_calls WHERE run_id = $1 AND state = 'pending')`,
      ),
      [runId],
    );
    if (rowCount === 1) await client.query("SELECT pg_notify($1, $2)", [this.#claimableChannel, runId]);
  }

  async claimRun(
    id: string,
    owner: string,
    fromStatuses: RunStatus[],
    expectedOwner: string | null,
  ): Promise<boolean> {
    // A paused run's `awaiting-approval` belongs to the pause (see SqliteStore.claimRun). The owner's lease must have
    // expired (judged by the server's clock, the one every instance shares), or there must be no owner.
    const rows = await this.#db.tx(async (client) => {
      const result = await client.query(
        this.#sql(
          `UPDATE {S}.runs SET status = 'running', stop_reason = NULL, owner = $2, epoch = epoch + 1,
             lease_until = now() + $5::interval, resumable = false, updated_at = $6
           WHERE id = $1 AND status = ANY($3::text[]) AND owner IS NOT DISTINCT FROM $4
             AND (owner IS NULL OR lease_until IS NULL OR lease_until < now())
           RETURNING epoch`,
        ),
        [id, owner, fromStatuses, expectedOwner, this.leases.interval, now()],
      );
      return result.rows;
    });
    const row = rows[0];
    if (!row) return false;
    this.leases.hold(id, Number(row.epoch));
    return true;
  }

  /**
   * The request is written by whichever instance received it, not by the run's driver: no epoch to check, but the
   * run's row lock, taken by the UPDATE as by every write of the run, orders it with them — a claim that takes the
   * run over commits before it (and the new driver finds the request) or after it (and keeps it). The notification
   * goes out at commit.
   */
  async requestCancel(
    runId: string,
    request: { by: string; reason: string },
  ): Promise<RunRecord | undefined> {
    const at = now();
    const row = await this.#db.tx(async (client) => {
      const { rowCount } = await client.query(
        this.#sql(
          `UPDATE {S}.runs SET cancel_request = COALESCE(cancel_request, $2::json)
           WHERE id = $1 AND status IN ('running', 'paused')`,
        ),
        [runId, json({ by: request.by, reason: text(request.reason), at })],
      );
      if (rowCount === 1) {
        await this.#audit(
          client,
          { actor: request.by, action: "cancel-requested", runId, detail: { reason: request.reason } },
          at,
        );
        await client.query("SELECT pg_notify($1, $2)", [this.#cancelChannel, runId]);
      }
      const { rows } = await client.query(this.#sql("SELECT * FROM {S}.runs WHERE id = $1"), [runId]);
      return rows[0] as Row | undefined;
    });
    return row ? runFromRow(row) : undefined;
  }

  async listCancelRequests(runIds: readonly string[]): Promise<Map<string, CancelRequest>> {
    const found = new Map<string, CancelRequest>();
    if (runIds.length === 0) return found;
    const rows = await this.#db.query(
      this.#sql(
        "SELECT id, cancel_request FROM {S}.runs WHERE id = ANY($1::text[]) AND cancel_request IS NOT NULL",
      ),
      [[...runIds]],
    );
    for (const row of rows) found.set(String(row.id), parseJson(row.cancel_request, {} as CancelRequest));
    return found;
  }

  async listMessages(conversationId: string): Promise<AgentMessage[]> {
    const rows = await this.#db.query(
      this.#sql("SELECT role, content, data FROM {S}.messages WHERE conversation_id = $1 ORDER BY id"),
      [conversationId],
    );
    return rows.map(messageFromRow);
  }

  async recordTurn(turn: Parameters<Store["recordTurn"]>[0]): Promise<ToolCallRecord[]> {
    const at = now();
    await this.#db.tx(async (client) => {
      await this.leases.fence(client, turn.runId, at);
      const closed = turn.close !== undefined;
      await client.query(
        this.#sql(
          `INSERT INTO {S}.steps (run_id, step, finish_reason, text, parse_errors, finished, started_at, finished_at)
           VALUES ($1, $2, $3, $4, $5::json, $6, $7, $8)`,
        ),
        [
          turn.runId,
          turn.step,
          turn.finishReason,
          text(turn.message.content),
          json(turn.parseErrors),
          closed,
          at,
          closed ? at : null,
        ],
      );
      await this.#insertMessage(client, turn.conversationId, turn.runId, turn.step, turn.message, at);
      for (const call of turn.calls) await this.#insertCall(client, turn.runId, turn.step, call, at);
      for (const entry of turn.audit) await this.#audit(client, entry, at);
      for (const message of turn.close?.messages ?? [])
        await this.#insertMessage(client, turn.conversationId, turn.runId, turn.step, message, at);
      await this.#updateRun(client, turn.runId, { stepCount: turn.step, ...turn.close?.run }, at);
    });
    if (turn.close?.run.owner === null) this.leases.release(turn.runId);
    return turn.calls.map((call) => {
      const final = call.result !== undefined;
      return {
        runId: turn.runId,
        id: call.id,
        step: turn.step,
        position: call.position,
        name: call.name,
        arguments: structuredClone(call.arguments),
        state: call.state,
        outcome: call.outcome ?? null,
        result: call.result ? structuredClone(call.result) : null,
        approval: call.approval ? structuredClone(call.approval) : null,
        startedAt: call.state === "executing" ? at : null,
        finishedAt: final ? at : null,
        durationMs: null,
      };
    });
  }

  async #insertCall(
    client: Queryable,
    runId: string,
    step: number,
    call: NewToolCall,
    at: string,
  ): Promise<void> {
    const final = call.result !== undefined;
    await client.query(
      this.#sql(
        `INSERT INTO {S}.tool_calls (run_id, id, step, position, name, arguments, state, outcome, result, started_at, finished_at)
         VALUES ($1, $2, $3, $4, $5, $6::json, $7, $8, $9::json, $10, $11)`,
      ),
      [
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
      ],
    );
    if (call.approval) {
      const a = call.approval;
      await client.query(
        this.#sql(
          `INSERT INTO {S}.approvals (run_id, call_id, policy, decision, decided_by, decided_at, reason, original_arguments)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8::json)`,
        ),
        [
          runId,
          call.id,
          a.policy,
          a.decision,
          a.decidedBy,
          a.decidedAt,
          textOrNull(a.reason),
          a.originalArguments ? json(a.originalArguments) : null,
        ],
      );
    }
  }

  async listSteps(runId: string): Promise<StepRecord[]> {
    const rows = await this.#db.query(this.#sql("SELECT * FROM {S}.steps WHERE run_id = $1 ORDER BY step"), [
      runId,
    ]);
    return rows.map(stepFromRow);
  }

  async listToolCalls(runId: string, step?: number): Promise<ToolCallRecord[]> {
    const base = `SELECT c.*, a.policy, a.decision, a.decided_by, a.decided_at, a.reason, a.original_arguments
      FROM {S}.tool_calls c LEFT JOIN {S}.approvals a ON a.run_id = c.run_id AND a.call_id = c.id WHERE c.run_id = $1`;
    const rows =
      step === undefined
        ? await this.#db.query(this.#sql(`${base} ORDER BY c.step, c.position`), [runId])
        : await this.#db.query(this.#sql(`${base} AND c.step = $2 ORDER BY c.position`), [runId, step]);
    return rows.map(toolCallFromRow);
  }

  async decideToolCalls(runId: string, decisions: CallDecision[]): Promise<void> {
    const at = now();
    await this.#db.tx(async (client) => {
      // The run's row first (the order every run transaction takes): a pause or a claim of the run waits for this
      // decision, or this decision for them, so "paused with nothing pending" is seen by one of the two.
      const { rows: runs } = await client.query(
        this.#sql("SELECT status FROM {S}.runs WHERE id = $1 FOR UPDATE"),
        [runId],
      );
      if (runs.length === 0) throw new StoreConflictError(`There is no run ${runId}.`);
      for (const d of decisions) {
        const { rows } = await client.query(
          this.#sql(
            `SELECT c.state, c.arguments, a.decision, a.decided_by, a.decided_at
             FROM {S}.tool_calls c LEFT JOIN {S}.approvals a ON a.run_id = c.run_id AND a.call_id = c.id
             WHERE c.run_id = $1 AND c.id = $2 FOR UPDATE OF c`,
          ),
          [runId, d.callId],
        );
        const row = rows[0] as Row | undefined;
        if (!row) throw new StoreConflictError(`Run ${runId} has no tool call ${d.callId}.`);
        if (row.state !== "pending") {
          const decided = row.decision === "approved" || row.decision === "denied";
          throw new StoreConflictError(
            `Tool call ${d.callId} is not waiting for a decision (${
              decided
                ? `it was ${String(row.decision)} by ${String(row.decided_by ?? "someone")}${row.decided_at ? ` at ${String(row.decided_at)}` : ""}`
                : `it is ${String(row.state)}`
            }).`,
          );
        }
        const original = row.arguments;
        const edited = d.decision === "approved" && d.arguments !== undefined;
        if (d.decision === "approved") {
          await client.query(
            this.#sql(
              "UPDATE {S}.tool_calls SET state = 'approved', arguments = $3::json WHERE run_id = $1 AND id = $2",
            ),
            [runId, d.callId, edited ? json(d.arguments) : json(original)],
          );
        } else {
          await client.query(
            this.#sql(
              "UPDATE {S}.tool_calls SET state = 'denied', outcome = 'denied', result = $3::json, finished_at = $4 WHERE run_id = $1 AND id = $2",
            ),
            [runId, d.callId, json(d.result ?? { content: [], isError: true }), at],
          );
        }
        await client.query(
          this.#sql(
            `UPDATE {S}.approvals SET decision = $3, decided_by = $4, decided_at = $5, reason = $6, original_arguments = $7::json
             WHERE run_id = $1 AND call_id = $2`,
          ),
          [runId, d.callId, d.decision, d.by, at, textOrNull(d.reason), edited ? json(original) : null],
        );
        const detail: Record<string, unknown> = {};
        if (d.reason !== undefined) detail.reason = d.reason;
        if (edited) {
          detail.originalArguments = parseJson(original, {});
          detail.arguments = d.arguments;
        }
        await this.#audit(
          client,
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
      await this.#markResumable(client, runId);
    });
  }

  async claimToolCalls(runId: string, callIds: readonly string[]): Promise<string[]> {
    if (callIds.length === 0) return [];
    const at = now();
    return this.#db.tx(async (client) => {
      await this.leases.fence(client, runId, at);
      const { rows } = await client.query(
        this.#sql(
          `UPDATE {S}.tool_calls SET state = 'executing', started_at = $3
           WHERE run_id = $1 AND id = ANY($2::text[]) AND state = 'approved' RETURNING id`,
        ),
        [runId, [...callIds], at],
      );
      const claimed = new Set(rows.map((r) => String(r.id)));
      return callIds.filter((id, i) => claimed.has(id) && callIds.indexOf(id) === i);
    });
  }

  async finishToolCall(
    runId: string,
    callId: string,
    outcome: Omit<ToolCallFinish, "callId">,
  ): Promise<void> {
    const at = now();
    await this.#db.tx(async (client) => {
      await this.leases.fence(client, runId, at);
      await this.#finishCall(client, runId, { callId, ...outcome }, at);
    });
  }

  async #finishCall(client: Queryable, runId: string, finish: ToolCallFinish, at: string): Promise<void> {
    const { rowCount } = await client.query(
      this.#sql(
        `UPDATE {S}.tool_calls SET state = $3, outcome = $4, result = $5::json, finished_at = $6, duration_ms = $7
         WHERE run_id = $1 AND id = $2 AND state = 'executing'`,
      ),
      [runId, finish.callId, finish.state, finish.outcome, json(finish.result), at, finish.durationMs],
    );
    if (rowCount !== 1)
      throw new StoreConflictError(`Tool call ${finish.callId} of run ${runId} was not executing.`);
  }

  async finishStep(step: Parameters<Store["finishStep"]>[0]): Promise<void> {
    const at = now();
    await this.#db.tx(async (client) => {
      await this.leases.fence(client, step.runId, at);
      for (const finish of step.results ?? []) await this.#finishCall(client, step.runId, finish, at);
      for (const message of step.messages)
        await this.#insertMessage(client, step.conversationId, step.runId, step.step, message, at);
      await client.query(
        this.#sql("UPDATE {S}.steps SET finished = true, finished_at = $3 WHERE run_id = $1 AND step = $2"),
        [step.runId, step.step, at],
      );
      await this.#updateRun(client, step.runId, step.run, at);
    });
    if (step.run.owner === null) this.leases.release(step.runId);
  }

  async listAudit(runId?: string): Promise<AuditRecord[]> {
    const rows =
      runId === undefined
        ? await this.#db.query(this.#sql("SELECT * FROM {S}.audit_log ORDER BY id"))
        : await this.#db.query(this.#sql("SELECT * FROM {S}.audit_log WHERE run_id = $1 ORDER BY id"), [
            runId,
          ]);
    return rows.map(auditFromRow);
  }

  async saveNote(note: { title: string; content: string; tags?: string[] }): Promise<NoteRecord> {
    const at = now();
    const tags = note.tags ?? [];
    const id = await this.#db.tx(async (client) => {
      const { rows } = await client.query(
        this.#sql(
          "INSERT INTO {S}.notes (title, content, tags, tag_text, created_at) VALUES ($1, $2, $3::json, $4, $5) RETURNING id",
        ),
        [text(note.title), text(note.content), json(tags), text(tags.join(" ")), at],
      );
      return Number(rows[0]?.id);
    });
    return { id, title: note.title, content: note.content, tags: [...tags], createdAt: at };
  }

  /**
   * Full-text search on the messages' and notes' `tsvector` columns (GIN indexes): any of the query's words may match
   * (OR), stemmed by the `english` configuration; ranked by `ts_rank` with a note's title weighing twice its body
   * (FTS5's bm25 weights here) and longer texts ranking lower for one match (normalization 1: rank / (1 + log length)).
   * The snippet marks matches in [brackets], as FTS5's does.
   */
  async searchMemory(query: string, options: MemorySearchOptions = {}): Promise<MemoryHit[]> {
    const words = searchWords(query);
    if (words.length === 0) return [];
    // Each word a quoted lexeme (the words hold only letters, digits and _), any of them: cannot be a syntax error.
    const tsquery = words.map((w) => `'${w}'`).join(" | ");
    const limit = Math.max(1, Math.min(options.limit ?? 5, 50));
    const weights = "'{0.1, 0.2, 0.5, 1.0}'";
    const parts: string[] = [];
    if (options.kind !== "message")
      parts.push(`SELECT 'note' AS kind, n.id AS ref_id, n.title, n.content || ' ' || n.tag_text AS body, n.created_at,
          NULL::text AS conversation_id, NULL::text AS role, ts_rank(${weights}, n.search, query.q, 1) AS rank
        FROM {S}.notes n, query WHERE n.search @@ query.q`);
    if (options.kind !== "note")
      parts.push(`SELECT 'message' AS kind, m.id AS ref_id, NULL::text AS title, m.content AS body, m.created_at,
          m.conversation_id, m.role, ts_rank(${weights}, setweight(m.search, 'B'), query.q, 1) AS rank
        FROM {S}.messages m, query WHERE m.search @@ query.q AND m.run_id IS DISTINCT FROM query.excluded_run
          AND (query.roles IS NULL OR m.role = ANY(query.roles))`);
    const sql =
      this.#sql(`WITH query AS (SELECT to_tsquery('english', $1) AS q, $3::text AS excluded_run, $4::text[] AS roles),
      hits AS (${parts.join(" UNION ALL ")} ORDER BY rank DESC, created_at DESC, ref_id DESC LIMIT $2)
      SELECT kind, ref_id, title, created_at, conversation_id, role,
        ts_headline('english', body, (SELECT q FROM query),
          'StartSel=[, StopSel=], MaxWords=24, MinWords=8, ShortWord=2, MaxFragments=1, FragmentDelimiter=…') AS snippet
      FROM hits ORDER BY rank DESC, created_at DESC, ref_id DESC`);
    // $3 is null when no run is left out: IS DISTINCT FROM null keeps every message, of a run or not; $4 null: any role.
    const rows = await this.#db.query(sql, [
      tsquery,
      limit,
      options.excludeRun ?? null,
      options.roles ?? null,
    ]);
    return rows.map(memoryHitFromRow);
  }

  async close(): Promise<void> {
    await this.#close();
  }
}
