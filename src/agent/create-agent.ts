import { randomUUID } from "node:crypto";
import os from "node:os";
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import { SqliteStore } from "../store/sqlite-store.js";
import type {
  ApprovalRecord,
  AuditEntry,
  NewToolCall,
  RunPatch,
  RunRecord,
  StepRecord,
  StopReason,
  Store,
  ToolCallFinish,
  ToolCallRecord,
} from "../store/store.js";
import { StoreConflictError } from "../store/store.js";
import { ToolNotFoundError } from "../tools/errors.js";
import { createNameFilter } from "../tools/name-filter.js";
import { errorResult } from "../tools/normalize-tool-result.js";
import { createRedactor, type Redactor, type RedactorOptions, redactDeep } from "../tools/redact-secrets.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import { type ToolCallOutcome, ToolExecutor } from "../tools/tool-executor.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import { truncateToolResult } from "../tools/truncate-tool-result.js";
import { validateToolInput } from "../tools/validate-tool-input.js";
import { DecisionError, RunNotFoundError, RunStateError } from "./agent-errors.js";
import { type ApprovalPolicyConfig, resolveApprovalPolicy } from "./approval-policy.js";
import { type CollectedCall, type CollectedTurn, collectModelTurn } from "./collect-model-turn.js";
import type { AgentEvent, AgentEventBody, PendingCall } from "./events.js";
import { type RunLimits, resolveLimits } from "./limits.js";
import type { AgentMessage, AssistantMessage } from "./messages.js";
import type { ExecuteCallOutcome, LanguageModel, ModelCallRequest, ToolChoice } from "./model.js";
import { RunHandle } from "./run-handle.js";
import { buildRunView, type RunView, toRunView } from "./run-view.js";
import type { TextCallProtocol } from "./text-protocol.js";
import { TraceWriter } from "./trace-writer.js";

export interface AgentOptions {
  model: LanguageModel;
  /** The tools: a registry (an executor with default options is made for it) or a configured executor. */
  tools: ToolRegistry | ToolExecutor;
  /** Where runs live. Default: a private in-memory SQLite database (runs do not survive the process). */
  store?: Store;
  /** Parse the model's text with this protocol (text-only backends, replayed `{"text": …}` turns). */
  protocol?: TextCallProtocol;
  /** System prompt for new conversations. */
  system?: string;
  toolChoice?: ToolChoice;
  limits?: Partial<RunLimits>;
  /** Per-tool approval policy; default `ask` for tools that require approval, `always` otherwise. */
  approval?: ApprovalPolicyConfig;
  /** Tools with side effects report what they would have done instead of running (and need no approval). */
  dryRun?: boolean;
  /** Only these tools (names or `*` patterns) are offered and callable in this agent's runs. */
  allow?: readonly string[];
  deny?: readonly string[];
  /** Offer no tool marked open-world (network, outside services). */
  localOnly?: boolean;
  /** Secret redaction for observations, events and traces; `false` turns it off. Default: on. */
  redact?: RedactorOptions | false;
  /** Observations longer than this are cut with a note. Default 20,000 characters. */
  maxObservationChars?: number;
  /** Write `<traceDir>/<runId>.jsonl` for every run. */
  traceDir?: string;
  /** Every event of every run of this agent (including decisions). */
  onEvent?: (event: AgentEvent) => void;
  /** On whose behalf tools run (cooldowns and rate limits). */
  userId?: string;
}

export interface RunOptions {
  runId?: string;
  /** Continue a conversation; default: a new one. */
  conversationId?: string;
  signal?: AbortSignal;
  limits?: Partial<RunLimits>;
  /** Stored with the run, for whoever resumes it in another process (the CLI keeps its flags here). */
  metadata?: Record<string, unknown>;
}

export type ApprovalDecision =
  | { callId: string; decision: "approve"; arguments?: Record<string, unknown> }
  | { callId: string; decision: "deny"; reason?: string };

export interface DecideResult {
  /** Calls of the paused step still waiting for a decision. */
  pending: PendingCall[];
  /** True when nothing is pending any more: `resume` will continue the run. */
  ready: boolean;
}

class StopRun {
  constructor(
    readonly reason: StopReason,
    readonly message?: string,
  ) {}
}

type RunState = Pick<RunRecord, "stepCount" | "toolCallCount" | "consecutiveFailures" | "repairs">;

/**
 * What a run handle keeps in memory while it drives a run, so that no step reads back what the run itself wrote: the
 * run record, the conversation's transcript, the steps recorded and every tool call of the run. It is built as a run
 * starts, or loaded from the store once when a run resumes (the store is the source of truth across processes), and
 * updated only after each write has committed.
 */
interface RunSession {
  run: RunRecord;
  messages: AgentMessage[];
  steps: number[];
  calls: ToolCallRecord[];
}

/** A call's handler has returned; its end is not committed yet. */
interface FinishedCall {
  call: ToolCallRecord;
  finish: ToolCallFinish;
}

const OWNER = `${os.hostname()}:${process.pid}`;
/** Runs being driven in this process, whatever Agent instance drives them. */
const activeRuns = new Set<string>();

function newRunId(): string {
  // randomUUID draws from a cached entropy pool; its first 8 characters are random hex.
  return `run_${Date.now().toString(36)}${randomUUID().slice(0, 8)}`;
}

function ownerIsGone(owner: string | null): boolean {
  if (owner === null) return true;
  const at = owner.lastIndexOf(":");
  const host = owner.slice(0, at);
  const pid = Number(owner.slice(at + 1));
  if (host !== os.hostname() || !Number.isInteger(pid)) return false;
  if (pid === process.pid) return true; // not in activeRuns (checked by the caller), so nobody here drives it
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

const FAILED_OUTCOMES = new Set([
  "tool-error",
  "invalid-input",
  "unknown-tool",
  "timeout",
  "cancelled",
  "limited",
  "invalid-output",
  "interrupted",
]);

/**
 * The agent loop: model → calls → validate → approval policy → execute → results → model, until a final answer or a
 * limit. All state lives in the store, so a paused or crashed run continues in another process. While a handle drives
 * a run it keeps the run's transcript and calls in memory (loaded once on resume) and only writes: a tool step is two
 * transactions (the model turn with its claimed calls; the last result with the step's close), a final answer one.
 *
 * Execution guarantee (at most once): a call's handler is started only once the call is `executing` in a committed
 * transaction — recorded so by the transaction that records the model's turn (the insert is the claim: it fails if the
 * call exists), or, for a call approved later, switched from `approved` by a conditional update (so two processes
 * cannot both claim it). Its result is committed as soon as the handler returns (the step's last result in the same
 * transaction that closes the step), before anything about it is reported. A call found `executing` on resume — the
 * process died between those two commits — is never run again: it becomes `interrupted` and the model is told the call
 * may or may not have taken effect. So no call runs twice and no unapproved call runs; a call whose effect happened
 * just before a crash is reported as interrupted rather than with its result.
 */
export class Agent {
  readonly store: Store;
  readonly executor: ToolExecutor;
  readonly model: LanguageModel;
  readonly #options: AgentOptions;
  readonly #redact: Redactor | undefined;
  readonly #trace: TraceWriter | undefined;
  readonly #visible: (name: string) => boolean;
  readonly #maxObservationChars: number;
  #offeredFor: readonly AnyToolDefinition[] | undefined;
  #offeredCache: Tool[] = [];

  constructor(options: AgentOptions) {
    this.#options = options;
    this.model = options.model;
    this.executor = options.tools instanceof ToolExecutor ? options.tools : new ToolExecutor(options.tools);
    this.store = options.store ?? new SqliteStore(":memory:");
    this.#redact = options.redact === false ? undefined : createRedactor(options.redact ?? {});
    this.#trace = options.traceDir ? new TraceWriter(options.traceDir, this.#redact) : undefined;
    const filter: { allow?: readonly string[]; deny?: readonly string[] } = {};
    if (options.allow) filter.allow = options.allow;
    if (options.deny) filter.deny = options.deny;
    this.#visible = createNameFilter(filter);
    this.#maxObservationChars = options.maxObservationChars ?? 20_000;
    resolveLimits(options.limits); // fail at construction, not at the first run
  }

  get registry(): ToolRegistry {
    return this.executor.registry;
  }

  /** The tools this agent offers: the registry's, minus the allowlist's exclusions and (local-only) open-world ones. */
  tools(): AnyToolDefinition[] {
    return this.registry.definitions().filter((d) => this.#offered(d));
  }

  /** The MCP tool objects offered to the model, recomputed only when the registry's list changes (it is cached there). */
  #offeredTools(): Tool[] {
    const definitions = this.registry.definitions();
    if (this.#offeredFor !== definitions) {
      this.#offeredFor = definitions;
      this.#offeredCache = definitions.filter((d) => this.#offered(d)).map((d) => d.tool);
    }
    return this.#offeredCache;
  }

  #offered(definition: AnyToolDefinition): boolean {
    if (!this.#visible(definition.tool.name)) return false;
    return !(this.#options.localOnly && definition.tool.annotations?.openWorldHint === true);
  }

  #tool(name: string): AnyToolDefinition | undefined {
    const definition = this.registry.get(name);
    return definition && this.#offered(definition) ? definition : undefined;
  }

  /** Start a run. Iterate the handle for events; `await handle.result` for the outcome. */
  run(prompt: string, options: RunOptions = {}): RunHandle {
    const runId = options.runId ?? newRunId();
    return new RunHandle(runId, async (emit) => {
      const limits = resolveLimits(this.#options.limits, options.limits);
      const conversationId = options.conversationId ?? `conv_${runId.slice(4)}`;
      const existing = options.conversationId ? await this.store.listMessages(options.conversationId) : [];
      const messages: AgentMessage[] = [];
      if (existing.length === 0 && this.#options.system)
        messages.push({ role: "system", content: this.#options.system });
      messages.push({ role: "user", content: prompt });
      const run = await this.store.createRun({
        id: runId,
        conversationId,
        conversationTitle: prompt.slice(0, 80),
        model: this.model.id,
        options: options.metadata ?? {},
        limits: { ...limits },
        owner: OWNER,
        messages,
      });
      activeRuns.add(runId);
      this.#emit(emit, runId, { type: "run-started", conversationId, model: this.model.id });
      const session: RunSession = { run, messages: [...existing, ...messages], steps: [], calls: [] };
      return this.#drive(session, emit, undefined, options.signal);
    });
  }

  /**
   * Continue a paused run whose pending calls are all decided, or a run whose process died (its owner is gone).
   * Throws RunStateError when calls still wait for a decision or another live process drives the run.
   */
  resume(runId: string, options: { signal?: AbortSignal } = {}): RunHandle {
    return new RunHandle(runId, async (emit) => {
      const run = await this.store.getRun(runId);
      if (!run) throw new RunNotFoundError(runId);
      if (run.status === "finished" || run.status === "stopped") {
        throw new RunStateError(
          `Run ${runId} is ${run.status} (${run.stopReason}); there is nothing to resume.`,
        );
      }
      if (activeRuns.has(runId)) throw new RunStateError(`Run ${runId} is already running in this process.`);
      if (run.status === "running" && !ownerIsGone(run.owner)) {
        throw new RunStateError(
          `Run ${runId} is being driven by process ${run.owner}; wait for it to pause or finish.`,
        );
      }
      const calls = await this.store.listToolCalls(runId);
      const pending = calls.filter((c) => c.step === run.stepCount && c.state === "pending");
      if (pending.length > 0) {
        throw new RunStateError(
          `Run ${runId} still waits for decisions on ${pending.map((c) => c.id).join(", ")}; approve or deny ${pending.length === 1 ? "it" : "them"} first.`,
        );
      }
      if (!(await this.store.claimRun(runId, OWNER, [run.status], run.owner))) {
        throw new RunStateError(`Run ${runId} was taken over by another process; try again.`);
      }
      activeRuns.add(runId);
      try {
        // Loaded once: from here on the run keeps its transcript and calls in memory.
        const [messages, steps] = await Promise.all([
          this.store.listMessages(run.conversationId),
          this.store.listSteps(runId),
        ]);
        const session: RunSession = {
          run: { ...run, status: "running", owner: OWNER },
          messages,
          steps: steps.map((s) => s.step),
          calls,
        };
        this.#emit(emit, runId, { type: "run-resumed", step: run.stepCount });
        return await this.#drive(
          session,
          emit,
          steps.find((s) => !s.finished),
          options.signal,
        );
      } finally {
        activeRuns.delete(runId);
      }
    });
  }

  /**
   * Record decisions on pending calls — one or a batch, all or none: if any decision is invalid (unknown call, not
   * pending, edited arguments that fail the tool's schema) a DecisionError is thrown and nothing is recorded.
   */
  async decide(
    runId: string,
    decisions: readonly ApprovalDecision[],
    options: { by?: string } = {},
  ): Promise<DecideResult> {
    const run = await this.store.getRun(runId);
    if (!run) throw new RunNotFoundError(runId);
    const calls = await this.store.listToolCalls(runId);
    const by = options.by ?? os.userInfo().username;
    const seen = new Set<string>();
    const records = decisions.map((d) => {
      const call = calls.find((c) => c.id === d.callId);
      if (!call)
        throw new DecisionError(
          `Run ${runId} has no tool call "${d.callId}". Pending: ${pendingIds(calls)}.`,
        );
      if (call.state !== "pending") {
        throw new DecisionError(
          `Tool call ${d.callId} (${call.name}) is not waiting for a decision: it is ${call.state}.`,
        );
      }
      if (seen.has(d.callId))
        throw new DecisionError(`Tool call ${d.callId} appears twice in one batch; decide it once.`);
      seen.add(d.callId);
      if (d.decision === "deny") {
        const reason = d.reason?.trim() ? d.reason.trim() : undefined;
        const text = `The user denied this call to ${call.name}${reason ? `: ${reason.replace(/[.!?]+$/, "")}.` : "."} It was not run.`;
        return {
          callId: d.callId,
          decision: "denied" as const,
          by,
          ...(reason ? { reason } : {}),
          result: this.#observe(errorResult(text)),
        };
      }
      if (d.arguments !== undefined) {
        const tool = this.#tool(call.name);
        if (!tool)
          throw new DecisionError(`Tool ${call.name} is no longer available; deny call ${d.callId} instead.`);
        const check = validateToolInput(tool.tool, d.arguments);
        if (!check.ok) {
          throw new DecisionError(
            `The edited arguments for ${d.callId} (${call.name}) are invalid: ${check.issues.join("; ")}.`,
          );
        }
        return { callId: d.callId, decision: "approved" as const, by, arguments: d.arguments };
      }
      return { callId: d.callId, decision: "approved" as const, by };
    });
    try {
      await this.store.decideToolCalls(runId, records);
    } catch (error) {
      if (error instanceof StoreConflictError) throw new DecisionError(error.message);
      throw error;
    }
    for (const r of records) {
      const body: AgentEventBody = { type: "approval-decided", callId: r.callId, decision: r.decision, by };
      if ("reason" in r && r.reason) body.reason = r.reason;
      if ("arguments" in r && r.arguments) body.arguments = r.arguments;
      this.#emit(undefined, runId, body);
    }
    // The transaction checked every decided call was pending, so what is left pending is the rest.
    const after = calls.filter((c) => c.state === "pending" && !seen.has(c.id));
    return {
      pending: after.map((c) => ({ callId: c.id, name: c.name, arguments: c.arguments })),
      ready: after.length === 0 && run.status === "paused",
    };
  }

  approve(runId: string, callId: string, options: { arguments?: Record<string, unknown>; by?: string } = {}) {
    const decision: ApprovalDecision =
      options.arguments === undefined
        ? { callId, decision: "approve" }
        : { callId, decision: "approve", arguments: options.arguments };
    return this.decide(runId, [decision], options.by === undefined ? {} : { by: options.by });
  }

  deny(runId: string, callId: string, options: { reason?: string; by?: string } = {}) {
    const decision: ApprovalDecision =
      options.reason === undefined
        ? { callId, decision: "deny" }
        : { callId, decision: "deny", reason: options.reason };
    return this.decide(runId, [decision], options.by === undefined ? {} : { by: options.by });
  }

  getRun(runId: string): Promise<RunView> {
    return buildRunView(this.store, runId);
  }

  async close(): Promise<void> {
    if (!this.#options.store) await this.store.close();
  }

  #emit(local: ((event: AgentEvent) => void) | undefined, runId: string, body: AgentEventBody): void {
    // Every body is a fresh literal made for this call: stamping it is cheaper than copying it.
    const event = body as AgentEvent;
    event.runId = runId;
    event.at = Date.now();
    local?.(event);
    this.#trace?.write(event);
    this.#options.onEvent?.(event);
  }

  /** Cap and redact what goes back to the model (and into the store). */
  #observe(result: CallToolResult): CallToolResult {
    const capped = truncateToolResult(result, this.#maxObservationChars);
    return this.#redact ? redactDeep(capped, this.#redact) : capped;
  }

  async #drive(
    session: RunSession,
    local: (event: AgentEvent) => void,
    open: StepRecord | undefined,
    signal: AbortSignal | undefined,
  ): Promise<RunView> {
    const { run } = session;
    const runId = run.id;
    const emit = (body: AgentEventBody) => this.#emit(local, runId, body);
    const limits = resolveLimits(run.limits as Partial<RunLimits>);
    const state: RunState = {
      stepCount: run.stepCount,
      toolCallCount: run.toolCallCount,
      consecutiveFailures: run.consecutiveFailures,
      repairs: run.repairs,
    };
    const segmentStart = performance.now();
    const startMs = run.activeMs;
    const activeMs = () => Math.round(startMs + (performance.now() - segmentStart));
    const total = new AbortController();
    const totalTimer = setTimeout(
      () => total.abort(new StopRun("timeout")),
      Math.max(0, limits.totalTimeoutMs - run.activeMs),
    );
    const onAbort = () => total.abort(new StopRun("aborted"));
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    const usedIds = new Set(session.calls.map((c) => c.id));

    const endPatch = (reason: StopReason, answer: string | null, error?: string) => {
      const status = reason === "final-answer" || reason === "length" ? "finished" : "stopped";
      const patch = {
        status,
        stopReason: reason,
        answer,
        activeMs: activeMs(),
        owner: null,
      } satisfies RunPatch;
      return error === undefined ? patch : { ...patch, error };
    };
    /** Report the end of the run once its patch has committed. */
    const announce = (patch: ReturnType<typeof endPatch>): RunView => {
      Object.assign(run, patch);
      if ("error" in patch) emit({ type: "error", message: patch.error });
      emit({
        type: "run-finished",
        status: patch.status,
        stopReason: patch.stopReason,
        answer: patch.answer,
      });
      return this.#view(session);
    };
    const end = async (reason: StopReason, answer: string | null, error?: string): Promise<RunView> => {
      const patch = endPatch(reason, answer, error);
      await this.store.updateRun(runId, patch);
      return announce(patch);
    };

    try {
      if (open) {
        const outcome = await this.#completeStep(
          session,
          open.step,
          open.parseErrors,
          state,
          limits,
          total.signal,
          emit,
          activeMs,
        );
        if (outcome === "paused") return this.#view(session);
        if (outcome instanceof StopRun) return await end(outcome.reason, null, outcome.message);
      }
      for (;;) {
        if (total.signal.aborted) {
          const reason = total.signal.reason instanceof StopRun ? total.signal.reason.reason : "aborted";
          return await end(reason, null);
        }
        if (state.stepCount >= limits.maxSteps) return await end("max-steps", null);
        // A backend that runs calls mid-generation (executeCall) closes a step per call, so `step` moves on.
        let step = state.stepCount + 1;
        const stepController = new AbortController();
        const stepTimer = setTimeout(
          () => stepController.abort(new StopRun("step-timeout")),
          limits.stepTimeoutMs,
        );
        const forward = () => stepController.abort(total.signal.reason);
        total.signal.addEventListener("abort", forward, { once: true });
        try {
          emit({ type: "step-started", step });
          // A copy: the transcript grows while the model may still hold this request.
          const messages = session.messages.slice();
          const tools = this.#offeredTools().slice();
          let n = 0;
          const newId = (preferred?: string) => {
            let id = preferred && !usedIds.has(preferred) ? preferred : `call_${step}_${++n}`;
            while (usedIds.has(id)) id = `call_${step}_${++n}`;
            usedIds.add(id);
            return id;
          };
          // Calls handed over while the model generates. Each one that needs no decision is settled as a step of its
          // own (recorded, run at most once, observed — the same machinery as below) and its observation goes back
          // into the generation; the first that needs a decision (or hits a limit) is deferred, and so is every call
          // after it: the model stops and they are classified with the turn's end, like streamed calls.
          const inTurn = {
            used: false,
            text: "",
            reasoning: "",
            deferred: [] as CollectedCall[],
            stop: undefined as StopRun | undefined,
            chain: Promise.resolve() as Promise<unknown>,
          };
          const executeCall = (call: ModelCallRequest): Promise<ExecuteCallOutcome> => {
            const next = inTurn.chain.then(async (): Promise<ExecuteCallOutcome> => {
              inTurn.used = true;
              const id = newId(call.id);
              emit({ type: "call-started", step, callId: id, name: call.name });
              const collected: CollectedCall = { id, name: call.name, arguments: call.arguments };
              if (
                inTurn.stop ||
                inTurn.deferred.length > 0 ||
                stepController.signal.aborted ||
                step >= limits.maxSteps ||
                !this.#settlesNow(collected, state, limits)
              ) {
                inTurn.deferred.push(collected);
                return { status: "pending" };
              }
              const single: CollectedTurn = {
                text: inTurn.text.trim(),
                reasoning: inTurn.reasoning,
                calls: [collected],
                parseErrors: [],
                finishReason: "tool-calls",
              };
              const { calls, audit } = this.#classify(runId, step, single, state, limits, emit);
              const message: AssistantMessage = {
                role: "assistant",
                content: single.text,
                toolCalls: [collected],
              };
              if (single.reasoning) message.reasoning = single.reasoning;
              const claimed = await this.#recordTurn(session, {
                step,
                message,
                finishReason: "tool-calls",
                calls,
                parseErrors: [],
                audit,
              });
              state.stepCount = step;
              const outcome = await this.#completeStep(
                session,
                step,
                [],
                state,
                limits,
                stepController.signal,
                emit,
                activeMs,
                single,
                claimed,
              );
              const result = session.calls.find((c) => c.id === id)?.result;
              if (outcome !== "continue" || !result) {
                inTurn.stop = outcome instanceof StopRun ? outcome : new StopRun("aborted");
                return { status: "pending" };
              }
              step += 1;
              inTurn.text = "";
              inTurn.reasoning = "";
              emit({ type: "step-started", step });
              return { status: "done", result };
            });
            inTurn.chain = next.catch(() => {});
            return next;
          };
          let turn: CollectedTurn;
          try {
            turn = await collectModelTurn(
              this.model,
              {
                messages,
                tools,
                toolChoice: this.#options.toolChoice ?? "auto",
                signal: stepController.signal,
                executeCall,
              },
              {
                ...(this.#options.protocol ? { protocol: this.#options.protocol } : {}),
                onText: (text) => {
                  inTurn.text += text;
                  emit({ type: "text-delta", step, text });
                },
                onReasoning: (text) => {
                  inTurn.reasoning += text;
                  emit({ type: "reasoning-delta", step, text });
                },
                onCallStart: (callId, name) => emit({ type: "call-started", step, callId, name }),
                onCallArgsDelta: (callId, text) => emit({ type: "call-args-delta", step, callId, text }),
                newId,
              },
            );
          } catch (error) {
            await inTurn.chain;
            if (stepController.signal.aborted) {
              const reason =
                stepController.signal.reason instanceof StopRun
                  ? stepController.signal.reason.reason
                  : "aborted";
              return await end(reason, null);
            }
            const message = error instanceof Error ? error.message : String(error);
            return await end("model-error", null, `The model failed: ${message}`);
          }
          await inTurn.chain;
          if (inTurn.stop) return await end(inTurn.stop.reason, null, inTurn.stop.message);
          if (inTurn.used) {
            // Earlier parts of the generation were recorded with their own steps; this step holds the rest.
            turn.text = inTurn.text.trim();
            turn.reasoning = inTurn.reasoning;
            turn.calls.push(...inTurn.deferred);
          }

          const { calls, audit, pending } = this.#classify(runId, step, turn, state, limits, emit);
          const message: AssistantMessage = { role: "assistant", content: turn.text };
          if (turn.reasoning) message.reasoning = turn.reasoning;
          const modelCalls = turn.calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments }));
          if (modelCalls.length) message.toolCalls = modelCalls;

          const record = {
            step,
            message,
            finishReason: turn.finishReason,
            calls,
            parseErrors: turn.parseErrors,
            audit,
          };
          if (turn.calls.length === 0 && turn.parseErrors.length === 0) {
            // A final answer: the turn, the step's end and the run's end are one transaction.
            const patch = endPatch(turn.finishReason === "length" ? "length" : "final-answer", turn.text);
            await this.#recordTurn(session, {
              ...record,
              close: { messages: [], run: { consecutiveFailures: 0, ...patch } },
            });
            state.stepCount = step;
            state.consecutiveFailures = 0;
            emit({
              type: "step-finished",
              step,
              finishReason: turn.finishReason,
              ...(turn.usage ? { usage: turn.usage } : {}),
              toolCalls: 0,
            });
            return announce(patch);
          }
          const claimed = await this.#recordTurn(session, record);
          state.stepCount = step;
          if (pending.length) emit({ type: "approval-requested", step, calls: pending });
          const outcome = await this.#completeStep(
            session,
            step,
            turn.parseErrors,
            state,
            limits,
            stepController.signal,
            emit,
            activeMs,
            turn,
            claimed,
          );
          if (outcome === "paused") return this.#view(session);
          if (outcome instanceof StopRun) return await end(outcome.reason, null, outcome.message);
          if (stepController.signal.aborted) {
            const reason =
              stepController.signal.reason instanceof StopRun
                ? stepController.signal.reason.reason
                : "aborted";
            return await end(reason, null);
          }
        } finally {
          clearTimeout(stepTimer);
          total.signal.removeEventListener("abort", forward);
        }
      }
    } catch (error) {
      // A store failure: leave the run as it is (resumable once the problem is fixed) but release it.
      await this.store.updateRun(runId, { owner: null, activeMs: activeMs() }).catch(() => {});
      throw error;
    } finally {
      clearTimeout(totalTimer);
      signal?.removeEventListener("abort", onAbort);
      activeRuns.delete(runId);
    }
  }

  #view(session: RunSession): RunView {
    return toRunView(session.run, session.steps, session.calls);
  }

  /**
   * Commit one model turn and mirror it in the session. Calls that can run at once are recorded as `executing`: that
   * committed insert is their claim (see the class comment), and they are returned for the caller to run.
   */
  async #recordTurn(
    session: RunSession,
    turn: Omit<Parameters<Store["recordTurn"]>[0], "runId" | "conversationId">,
  ): Promise<ToolCallRecord[]> {
    for (const call of turn.calls) if (call.state === "approved") call.state = "executing";
    const records = await this.store.recordTurn({
      runId: session.run.id,
      conversationId: session.run.conversationId,
      ...turn,
    });
    session.run.stepCount = turn.step;
    session.steps.push(turn.step);
    session.calls.push(...records);
    session.messages.push(turn.message);
    if (turn.close) {
      session.messages.push(...turn.close.messages);
      Object.assign(session.run, turn.close.run);
    }
    return records.filter((r) => r.state === "executing");
  }

  /**
   * Whether a call made mid-generation can be settled at once without pausing the run: it will run (no approval
   * needed, tool-call budget left) or is refused with an observation (unknown tool, invalid arguments, policy never).
   */
  #settlesNow(call: CollectedCall, state: RunState, limits: RunLimits): boolean {
    if (state.toolCallCount >= limits.maxToolCalls) return false;
    const tool = this.#tool(call.name);
    if (!tool || !validateToolInput(tool.tool, call.arguments).ok) return true;
    const policy = resolveApprovalPolicy(this.#options.approval, call, tool);
    return !(policy === "ask" && !(this.#options.dryRun && tool.hasSideEffects));
  }

  /** Turn the model's calls into records: invalid ones get their error observation now, the rest a policy decision. */
  #classify(
    runId: string,
    step: number,
    turn: CollectedTurn,
    state: RunState,
    limits: RunLimits,
    emit: (body: AgentEventBody) => void,
  ): { calls: NewToolCall[]; audit: AuditEntry[]; pending: PendingCall[] } {
    const calls: NewToolCall[] = [];
    const audit: AuditEntry[] = [];
    const pending: PendingCall[] = [];
    let budget = limits.maxToolCalls - state.toolCallCount;
    const invalid = (
      position: number,
      id: string,
      name: string,
      args: Record<string, unknown>,
      message: string,
    ) => {
      emit({ type: "call-invalid", step, callId: id, name, message });
      calls.push({
        id,
        position,
        name,
        arguments: args,
        state: "invalid",
        outcome: "invalid",
        result: this.#observe(errorResult(message)),
      });
    };
    for (const [position, call] of turn.calls.entries()) {
      if (call.error !== undefined) {
        invalid(
          position,
          call.id,
          call.name,
          call.arguments,
          `Could not read the call${call.name ? ` to ${call.name}` : ""}: ${call.error}. Write the call again.`,
        );
        continue;
      }
      emit({ type: "call-finished", step, callId: call.id, name: call.name, arguments: call.arguments });
      const tool = this.#tool(call.name);
      if (!tool) {
        invalid(
          position,
          call.id,
          call.name,
          call.arguments,
          `${
            new ToolNotFoundError(
              call.name,
              this.tools().map((d) => d.tool.name),
            ).message
          } Call one of those instead.`,
        );
        continue;
      }
      const check = validateToolInput(tool.tool, call.arguments);
      if (!check.ok) {
        const lines = check.issues.map((issue) => `- ${issue}`).join("\n");
        invalid(
          position,
          call.id,
          call.name,
          call.arguments,
          `Invalid arguments for ${call.name}:\n${lines}\nFix the arguments and call again.`,
        );
        continue;
      }
      const base = { id: call.id, position, name: call.name, arguments: call.arguments };
      const policy = resolveApprovalPolicy(this.#options.approval, call, tool);
      if (policy === "never") {
        const text = `${call.name} is not allowed in this run (approval policy: never); it was not run.`;
        const approval: ApprovalRecord = {
          policy,
          decision: "denied",
          decidedBy: "policy",
          decidedAt: new Date().toISOString(),
          reason: "policy: never",
          originalArguments: null,
        };
        calls.push({
          ...base,
          state: "denied",
          outcome: "denied",
          result: this.#observe(errorResult(text)),
          approval,
        });
        audit.push({ actor: "policy", action: "deny", runId, callId: call.id, detail: { policy } });
        continue;
      }
      if (budget <= 0) {
        const text = `Not run: this run's limit of ${limits.maxToolCalls} tool calls is reached.`;
        calls.push({
          ...base,
          state: "refused",
          outcome: "refused",
          result: this.#observe(errorResult(text)),
        });
        continue;
      }
      budget -= 1;
      // A dry run changes nothing, so only tools that really run (read-only ones) still need a person's approval.
      const asks = policy === "ask" && !(this.#options.dryRun && tool.hasSideEffects);
      if (asks) {
        calls.push({
          ...base,
          state: "pending",
          approval: {
            policy,
            decision: "pending",
            decidedBy: null,
            decidedAt: null,
            reason: null,
            originalArguments: null,
          },
        });
        pending.push({ callId: call.id, name: call.name, arguments: call.arguments });
      } else if (tool.requiresApproval) {
        // Approved without asking although the tool normally asks (--auto-approve, a policy, a dry run): keep a record.
        const approval: ApprovalRecord = {
          policy,
          decision: "approved",
          decidedBy: "policy",
          decidedAt: new Date().toISOString(),
          reason: this.#options.dryRun ? "dry run" : null,
          originalArguments: null,
        };
        calls.push({ ...base, state: "approved", approval });
        audit.push({
          actor: "policy",
          action: "approve",
          runId,
          callId: call.id,
          detail: { policy, dryRun: this.#options.dryRun === true },
        });
      } else {
        calls.push({ ...base, state: "approved" });
      }
    }
    return { calls, audit, pending };
  }

  /**
   * Bring a step to its end: settle calls interrupted by a crash, run the claimed ones (concurrently, each result
   * committed as its handler returns; the last one in the transaction that closes the step), pause if decisions are
   * missing, else append the observations in call order and update counters.
   *
   * `claimed`: the calls the turn just recorded as `executing`. Without it the step is being resumed: calls found
   * `executing` were cut off by a crash and become `interrupted`; `approved` ones are claimed now.
   */
  async #completeStep(
    session: RunSession,
    step: number,
    parseErrors: readonly string[],
    state: RunState,
    limits: RunLimits,
    signal: AbortSignal,
    emit: (body: AgentEventBody) => void,
    activeMs: () => number,
    turn?: CollectedTurn,
    claimed?: ToolCallRecord[],
  ): Promise<"paused" | "continue" | StopRun> {
    const { run } = session;
    const runId = run.id;
    let calls = session.calls.filter((c) => c.step === step);
    let toRun = claimed;
    if (!toRun) {
      for (const call of calls.filter((c) => c.state === "executing")) {
        const finish: ToolCallFinish = {
          callId: call.id,
          state: "interrupted",
          outcome: "interrupted",
          result: this.#observe(
            errorResult(
              `The call to ${call.name} was interrupted: the process stopped while it ran. It was not run again because it may already have taken effect; check before calling it again.`,
            ),
          ),
          durationMs: null,
        };
        await this.store.finishToolCall(runId, call.id, finish);
        applyFinish(call, finish);
        this.#emitResult(step, call, finish, emit);
      }
      toRun = await this.#claim(session, calls);
    }
    let last: FinishedCall | undefined;
    for (;;) {
      const pausing = calls.some((c) => c.state === "pending");
      last = await this.#runCalls(runId, step, toRun, signal, emit, !pausing);
      if (!pausing) break;
      // Decisions may have been recorded while the calls ran (decide() needs no pause): ask the store, the one place
      // that knows, before pausing. This read happens only on the way to a pause.
      const stored = await this.store.listToolCalls(runId, step);
      session.calls = [...session.calls.filter((c) => c.step !== step), ...stored];
      calls = stored;
      if (calls.some((c) => c.state === "pending")) {
        const list = calls
          .filter((c) => c.state === "pending")
          .map((c) => ({ callId: c.id, name: c.name, arguments: c.arguments }));
        const patch = {
          status: "paused",
          stopReason: "awaiting-approval",
          owner: null,
          activeMs: activeMs(),
        } satisfies RunPatch;
        await this.store.updateRun(runId, patch);
        Object.assign(run, patch);
        emit({ type: "run-paused", pending: list });
        return "paused";
      }
      toRun = await this.#claim(session, calls);
    }

    const messages: AgentMessage[] = calls.map((c) => ({
      role: "tool",
      callId: c.id,
      name: c.name,
      result: c.result ?? errorResult(`The call to ${c.name} has no result.`),
    }));
    if (parseErrors.length) {
      messages.push({
        role: "user",
        content: `[tool call error] ${parseErrors.join(" ")} Write the tool call again in the required format, or answer without it.`,
      });
    }
    const ran = calls.filter((c) => c.state === "done" || c.state === "interrupted").length;
    const hadInvalid = parseErrors.length > 0 || calls.some((c) => c.state === "invalid");
    const failed = (c: ToolCallRecord) =>
      c.state === "invalid" || (c.outcome !== null && FAILED_OUTCOMES.has(c.outcome));
    const allFailed = (calls.length > 0 || parseErrors.length > 0) && calls.every(failed);
    state.toolCallCount += ran;
    state.repairs += hadInvalid ? 1 : 0;
    state.consecutiveFailures = allFailed ? state.consecutiveFailures + 1 : 0;
    const patch: RunPatch = {
      toolCallCount: state.toolCallCount,
      repairs: state.repairs,
      consecutiveFailures: state.consecutiveFailures,
      activeMs: activeMs(),
    };
    await this.store.finishStep({
      runId,
      conversationId: run.conversationId,
      step,
      messages,
      run: patch,
      ...(last ? { results: [last.finish] } : {}),
    });
    Object.assign(run, patch);
    session.messages.push(...messages);
    if (last) this.#emitResult(step, last.call, last.finish, emit);
    emit({
      type: "step-finished",
      step,
      finishReason: turn?.finishReason ?? "tool-calls",
      ...(turn?.usage ? { usage: turn.usage } : {}),
      toolCalls: calls.length,
    });
    if (calls.some((c) => c.state === "refused")) return new StopRun("max-tool-calls");
    if (hadInvalid && state.repairs > limits.maxRepairs) return new StopRun("max-repairs");
    if (state.consecutiveFailures >= limits.maxConsecutiveFailures)
      return new StopRun("max-consecutive-failures");
    return "continue";
  }

  /** approved → executing for the step's approved calls, in one committed transaction; returns those claimed. */
  async #claim(session: RunSession, calls: readonly ToolCallRecord[]): Promise<ToolCallRecord[]> {
    const approved = calls.filter((c) => c.state === "approved");
    if (approved.length === 0) return [];
    const ids = new Set(
      await this.store.claimToolCalls(
        session.run.id,
        approved.map((c) => c.id),
      ),
    );
    const at = new Date().toISOString();
    const claimed = approved.filter((c) => ids.has(c.id));
    for (const call of claimed) {
      call.state = "executing";
      call.startedAt = at;
    }
    return claimed;
  }

  /**
   * Run claimed calls concurrently. Each result is committed as its handler returns — except, with `deferLast`, the
   * last one to finish: it is returned uncommitted, for the transaction that closes the step (committed at once,
   * before anything about it is reported).
   */
  async #runCalls(
    runId: string,
    step: number,
    calls: readonly ToolCallRecord[],
    signal: AbortSignal,
    emit: (body: AgentEventBody) => void,
    deferLast: boolean,
  ): Promise<FinishedCall | undefined> {
    let outstanding = calls.length;
    let last: FinishedCall | undefined;
    await Promise.all(
      calls.map(async (call) => {
        const finish = await this.#execute(step, call, signal, emit);
        outstanding -= 1;
        if (deferLast && outstanding === 0) {
          // In memory now, for the observations of the step's close; reported once that has committed.
          applyFinish(call, finish);
          last = { call, finish };
          return;
        }
        await this.store.finishToolCall(runId, call.id, finish);
        applyFinish(call, finish);
        this.#emitResult(step, call, finish, emit);
      }),
    );
    return last;
  }

  #emitResult(
    step: number,
    call: ToolCallRecord,
    finish: ToolCallFinish,
    emit: (body: AgentEventBody) => void,
  ) {
    emit({
      type: "tool-result",
      step,
      callId: call.id,
      name: call.name,
      status: finish.outcome,
      result: finish.result,
      durationMs: finish.durationMs,
    });
  }

  /** Run one claimed call's handler (the claim is committed: it may start) and return its end, not yet committed. */
  async #execute(
    step: number,
    call: ToolCallRecord,
    signal: AbortSignal,
    emit: (body: AgentEventBody) => void,
  ): Promise<ToolCallFinish> {
    emit({ type: "tool-started", step, callId: call.id, name: call.name });
    const started = performance.now();
    let outcome: Pick<ToolCallOutcome, "status" | "result">;
    try {
      const options: Parameters<ToolExecutor["execute"]>[1] = { signal };
      if (this.#options.userId !== undefined) options.userId = this.#options.userId;
      if (this.#options.dryRun) options.dryRun = true;
      outcome = await this.executor.execute(
        { name: call.name, arguments: call.arguments, callId: call.id },
        options,
      );
    } catch (error) {
      outcome = {
        status: "unknown-tool",
        result: errorResult(error instanceof Error ? error.message : String(error)),
      };
    }
    return {
      callId: call.id,
      state: "done",
      outcome: outcome.status,
      result: this.#observe(outcome.result),
      durationMs: Math.round(performance.now() - started),
    };
  }
}

/** Mirror a call's end in the session's record (the store's copy gets the same values in the same commit). */
function applyFinish(call: ToolCallRecord, finish: ToolCallFinish): void {
  call.state = finish.state;
  call.outcome = finish.outcome;
  call.result = finish.result;
  call.durationMs = finish.durationMs;
  call.finishedAt = new Date().toISOString();
}

function pendingIds(calls: readonly ToolCallRecord[]): string {
  const ids = calls.filter((c) => c.state === "pending").map((c) => c.id);
  return ids.length ? ids.join(", ") : "none";
}

export function createAgent(options: AgentOptions): Agent {
  return new Agent(options);
}
