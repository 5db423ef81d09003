import os from "node:os";
import type { Tool } from "@modelcontextprotocol/server";
import type { AgentMessage } from "../core/agent-message.js";
import type { LanguageModel, ToolChoice } from "../core/language-model.js";
import { InMemoryStore } from "../store/in-memory-store.js";
import type { RunRecord, RunStatus, RunStore, ToolCallRecord } from "../store/store.js";
import { StoreConflictError } from "../store/store.js";
import type { ApprovalPolicyConfig } from "../tools/approval-policy.js";
import { createNameFilter } from "../tools/name-filter.js";
import { type Redactor, type RedactorOptions, redactDeep } from "../tools/redact-secrets.js";
import type { ToolSelection } from "../tools/select-tools.js";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import { ToolExecutor, type ToolExecutorOptions } from "../tools/tool-executor.js";
import type { ToolRegistry } from "../tools/tool-registry.js";
import { AgentConfigError, DecisionError, RunNotFoundError, RunStateError } from "./agent-errors.js";
import { type ApprovalDecision, prepareDecisions } from "./decide-calls.js";
import { driveRun } from "./drive-run.js";
import type { AgentEvent, AgentEventBody, PendingCall } from "./events.js";
import { type RunLimits, resolveLimits } from "./limits.js";
import type { Emit, RunEnvironment } from "./run-environment.js";
import { RunHandle } from "./run-handle.js";
import { activeRuns, newRunId, ownerIsGone, RUN_OWNER } from "./run-ownership.js";
import { RunSession } from "./run-session.js";
import { buildRunView, type RunView } from "./run-view.js";
import { TraceWriter } from "./trace-writer.js";
import { TurnTools } from "./turn-tools.js";

export type { ApprovalDecision } from "./decide-calls.js";

export interface AgentOptions {
  model: LanguageModel;
  /**
   * The tools: a registry (the agent makes an executor for it, with `redact` and `maxObservationChars`) or a configured
   * executor (whose `redact` and `defaultMaxOutputChars` then apply; giving the agent's two as well is an error).
   */
  tools: ToolRegistry | ToolExecutor;
  /** Where runs live. Default: an InMemoryStore of its own (runs do not survive the process). */
  store?: RunStore;
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
  /**
   * Secret redaction for observations, the model's own text (answer, reasoning, call arguments), events, traces and
   * everything stored; `false` turns it off. It is the executor's `redact` (only with `tools` a registry): one
   * redactor serves tool results and everything else, so the two cannot disagree. Default: the default patterns and
   * secret-looking environment variables.
   */
  redact?: RedactorOptions | false;
  /**
   * Observations longer than this are cut with a note (after redaction). It is the executor's `defaultMaxOutputChars`
   * (only with `tools` a registry), so a result is cut once; a tool's own `maxOutputChars` wins. Default 20,000.
   */
  maxObservationChars?: number;
  /** Write `<traceDir>/<runId>.jsonl` for every run. */
  traceDir?: string;
  /** Every event of every run of this agent (including decisions). */
  onEvent?: (event: AgentEvent) => void;
  /** On whose behalf tools run (cooldowns and rate limits). */
  userId?: string;
  /**
   * Offer each turn only the `maxTools` tools that fit the conversation best (lexical retrieval over names,
   * descriptions and parameters), plus the `always` ones and those already called in the run. A call to a tool of the
   * catalogue that was not offered this turn is still accepted.
   */
  toolSelection?: ToolSelection;
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

export interface DecideResult {
  /** Calls of the paused step still waiting for a decision. */
  pending: PendingCall[];
  /** True when nothing is pending any more: `resume` will continue the run. */
  ready: boolean;
}

/**
 * The agent loop: model → calls → validate → approval policy → execute → results → model, until a final answer or a
 * limit. All state lives in the store, so a paused or crashed run continues in another process. While a handle drives
 * a run it keeps the run's transcript and calls in memory (RunSession, loaded once on resume) and only writes: a tool
 * step is two transactions (the model turn with its claimed calls; the last result with the step's close), a final
 * answer one. How a run is driven: drive-run.ts (the loop), run-step.ts (one step), classify-calls.ts (what becomes of
 * each call), complete-step.ts (running and closing a step), in-generation-calls.ts (backends that run calls while
 * generating).
 *
 * Execution guarantee (at most once): written in src/agent/README.md, the one place that states it. The code that keeps
 * it: the claim of a call before its handler starts (RunSession.recordTurn's insert, claimApprovedCalls' conditional
 * update), the result committed as the handler returns (run-claimed-calls.ts), and a call found `executing` on resume
 * settled as `interrupted` (complete-step.ts), never run again.
 */
/**
 * Whether an agent with these options offers a tool: the allow and deny lists, and local-only's rule (no open-world
 * tool). Also what the CLI checks a named `--tool-choice` against before it loads a model.
 */
export function offersTool(
  options: Pick<AgentOptions, "allow" | "deny" | "localOnly">,
): (definition: AnyToolDefinition) => boolean {
  const filter: { allow?: readonly string[]; deny?: readonly string[] } = {};
  if (options.allow) filter.allow = options.allow;
  if (options.deny) filter.deny = options.deny;
  const visible = createNameFilter(filter);
  return (definition) =>
    visible(definition.tool.name) &&
    !(options.localOnly && definition.tool.annotations?.openWorldHint === true);
}

export class Agent {
  readonly store: RunStore;
  readonly executor: ToolExecutor;
  readonly model: LanguageModel;
  readonly #options: AgentOptions;
  readonly #redact: Redactor | undefined;
  readonly #trace: TraceWriter | undefined;
  readonly #offered: (definition: AnyToolDefinition) => boolean;
  readonly #env: RunEnvironment;
  #offeredFor: readonly AnyToolDefinition[] | undefined;
  #offeredCache: Tool[] = [];
  readonly #turnTools: TurnTools;

  constructor(options: AgentOptions) {
    this.#options = options;
    this.model = options.model;
    this.executor = executorFor(options);
    this.store = options.store ?? new InMemoryStore();
    this.#redact = this.executor.redactor;
    this.#trace = options.traceDir ? new TraceWriter(options.traceDir, this.#redact) : undefined;
    this.#offered = offersTool(options);
    resolveLimits(options.limits); // fail at construction, not at the first run
    this.#turnTools = new TurnTools(options.toolSelection);
    this.#env = {
      model: this.model,
      store: this.store,
      executor: this.executor,
      toolChoice: options.toolChoice ?? "auto",
      approval: options.approval,
      dryRun: options.dryRun === true,
      userId: options.userId,
      redactor: this.#redact,
      tool: (name) => this.#tool(name),
      toolNames: () => this.tools().map((d) => d.tool.name),
      offeredTools: (context) => {
        const catalogue = this.#offeredTools();
        return context ? this.#turnTools.for(catalogue, context, this.#env.toolChoice) : catalogue;
      },
      selectingTools: this.#turnTools.selecting,
      clean: (value) => this.#clean(value),
    };
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

  #tool(name: string): AnyToolDefinition | undefined {
    const definition = this.registry.get(name);
    return definition && this.#offered(definition) ? definition : undefined;
  }

  /** Start a run. Iterate the handle for events; `await handle.result` for the outcome. */
  run(prompt: string, options: RunOptions = {}): RunHandle {
    const runId = options.runId ?? newRunId();
    return new RunHandle(runId, async (local) => {
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
        owner: RUN_OWNER,
        messages,
      });
      return this.#driveHere(runId, options.signal, (signal) => {
        const emit = this.#emitter(local, runId);
        emit({ type: "run-started", conversationId, model: this.model.id });
        const session = new RunSession(run, [...existing, ...messages], [], []);
        return driveRun({ env: this.#env, session, emit, open: undefined, signal });
      });
    });
  }

  /**
   * Continue a paused run whose pending calls are all decided, or a run whose process died (its owner is gone; with a
   * store that owns runs by leases: its lease expired). Throws RunStateError when calls still wait for a decision or
   * another live process drives the run. `claimed`: the caller already claimed the run for this process
   * (`store.leases.claimNext`), so it is not claimed again.
   */
  resume(runId: string, options: { signal?: AbortSignal; claimed?: boolean } = {}): RunHandle {
    return new RunHandle(runId, async (local) => {
      const run = await this.store.getRun(runId);
      if (!run) throw new RunNotFoundError(runId);
      if (run.status === "finished" || run.status === "stopped") {
        throw new RunStateError(
          `Run ${runId} is ${run.status} (${run.stopReason}); there is nothing to resume.`,
        );
      }
      if (activeRuns.has(runId)) throw new RunStateError(`Run ${runId} is already running in this process.`);
      if (options.claimed) {
        if (run.status !== "running" || run.owner !== RUN_OWNER)
          throw new RunStateError(`Run ${runId} was not claimed by this process; it is ${run.status}.`);
      } else if (run.status === "running" && !ownerIsGone(run.owner, run.leaseUntil)) {
        throw new RunStateError(
          `Run ${runId} is being driven by process ${run.owner}; wait for it to pause or finish.`,
        );
      }
      const calls = await this.store.listToolCalls(runId);
      const pending = calls.filter((c) => c.step === run.stepCount && c.state === "pending");
      // A paused run waits for its decisions. A running one whose process died between recording its calls and
      // pausing is driven on: its open step pauses for them again.
      if (pending.length > 0 && run.status === "paused") {
        if (options.claimed) this.store.leases?.forget(runId);
        throw new RunStateError(
          `Run ${runId} still waits for decisions on ${pending.map((c) => c.id).join(", ")}; approve or deny ${pending.length === 1 ? "it" : "them"} first.`,
        );
      }
      if (!options.claimed && !(await this.store.claimRun(runId, RUN_OWNER, [run.status], run.owner))) {
        throw new RunStateError(`Run ${runId} was taken over by another process; try again.`);
      }
      try {
        return await this.#driveHere(runId, options.signal, async (signal) => {
          // Loaded once: from here on the run keeps its transcript and calls in memory.
          const [messages, steps] = await Promise.all([
            this.store.listMessages(run.conversationId),
            this.store.listSteps(runId),
          ]);
          const session = new RunSession(
            { ...run, status: "running", stopReason: null, owner: RUN_OWNER },
            messages,
            steps.map((s) => s.step),
            calls,
          );
          const emit = this.#emitter(local, runId);
          emit({ type: "run-resumed", step: run.stepCount });
          const open = steps.find((s) => !s.finished);
          return await driveRun({ env: this.#env, session, emit, open, signal });
        });
      } finally {
        // A lease this process took and does not use any more (the drive ended, or never began) is not renewed.
        this.store.leases?.forget(runId);
      }
    });
  }

  /**
   * Stop a run. One driven in this process (by any agent) is aborted and ends `stopped` (`aborted`) as its driver
   * stops; one paused, or left running by a process that is gone, is stopped at once: its pending calls are denied
   * (recorded as denied by `by`, with `reason`), so that no view of the stopped run still offers them, and its
   * `run-finished` event is emitted here. Throws RunStateError when the run is over already or another live process
   * drives it (cancel it there).
   */
  async cancel(
    runId: string,
    options: { by?: string; reason?: string } = {},
  ): Promise<{ runId: string; status: RunStatus }> {
    const driven = activeRuns.get(runId);
    if (driven) {
      driven.controller.abort();
      await driven.ended;
      const run = await this.store.getRun(runId);
      if (!run) throw new RunNotFoundError(runId);
      return { runId, status: run.status };
    }
    const run = await this.store.getRun(runId);
    if (!run) throw new RunNotFoundError(runId);
    if (run.status === "finished" || run.status === "stopped") throw RunStateError.nothingToCancel(run);
    if (run.status === "running" && !ownerIsGone(run.owner, run.leaseUntil))
      throw new RunStateError(`Run ${runId} is driven by process ${run.owner}; cancel it there.`);
    if (!(await this.store.claimRun(runId, RUN_OWNER, [run.status], run.owner)))
      throw new RunStateError(`Run ${runId} was just taken over by another process; try again.`);
    try {
      const pending = (await this.store.listToolCalls(runId)).filter((c) => c.state === "pending");
      if (pending.length > 0) {
        const reason = options.reason ?? "the run was cancelled";
        await this.decide(
          runId,
          pending.map((c) => ({ callId: c.id, decision: "deny" as const, reason })),
          options.by === undefined ? {} : { by: options.by },
        );
      }
      await this.store.updateRun(runId, { status: "stopped", stopReason: "aborted", owner: null });
    } finally {
      this.store.leases?.forget(runId);
    }
    // Nobody drives it, so the end its followers wait for is emitted here.
    this.#emitter(
      undefined,
      runId,
    )({
      type: "run-finished",
      status: "stopped",
      stopReason: "aborted",
      answer: null,
    });
    return { runId, status: "stopped" };
  }

  /**
   * Take over what a process that is gone left behind: runs left `running` by an owner that is gone (a dead process;
   * with leases, an expired lease) and paused runs whose calls were all decided meanwhile (a decision recorded by a
   * process that could not resume them). Paused runs still waiting for a decision stay paused. `accept` picks the runs
   * the caller can rebuild (default: all); `resume` drives each (default: `this.resume`, in the background — follow
   * it through `onEvent` or `getRun`). Resolves with the ids handed to `resume`.
   */
  async recover(
    options: { accept?: (run: RunRecord) => boolean; resume?: (run: RunRecord) => void } = {},
  ): Promise<string[]> {
    const accept = options.accept ?? (() => true);
    const resume =
      options.resume ??
      ((run: RunRecord) => {
        this.resume(run.id);
      });
    const recovered: string[] = [];
    for (const run of await this.store.listRuns({ status: "running", limit: 10_000 })) {
      if (activeRuns.has(run.id) || !ownerIsGone(run.owner, run.leaseUntil) || !accept(run)) continue;
      resume(run);
      recovered.push(run.id);
    }
    for (const run of await this.store.listRuns({ status: "paused", limit: 10_000 })) {
      if (activeRuns.has(run.id) || !accept(run)) continue;
      const calls = await this.store.listToolCalls(run.id, run.stepCount);
      if (calls.some((c) => c.state === "pending")) continue;
      resume(run);
      recovered.push(run.id);
    }
    return recovered;
  }

  /**
   * Record decisions on pending calls — one or a batch, all or none: if any decision cannot be accepted (unknown call,
   * one not pending, a run that is over, edited arguments that fail the tool's schema) a DecisionError with its
   * `reason` is thrown and nothing is recorded. The store checks again in its transaction; a call decided meanwhile
   * (another process, another instance) is then answered as if it had been seen decided in the first place.
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
    const prepare = (current: RunRecord, currentCalls: readonly ToolCallRecord[]) =>
      prepareDecisions({
        run: current,
        calls: currentCalls,
        decisions,
        by,
        tool: (name) => this.#tool(name),
        observe: (result) => this.executor.observe(result),
      });
    const records = prepare(run, calls);
    try {
      await this.store.decideToolCalls(runId, records);
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      // Decided (or ended) between the read and the transaction: the check on what is there now says by whom.
      const now = await this.store.getRun(runId);
      if (!now) throw new RunNotFoundError(runId);
      prepare(now, await this.store.listToolCalls(runId));
      throw new DecisionError("not-pending", error.message);
    }
    const emit = this.#emitter(undefined, runId);
    for (const r of records) {
      const body: AgentEventBody = { type: "approval-decided", callId: r.callId, decision: r.decision, by };
      if (r.reason) body.reason = r.reason;
      if (r.arguments) body.arguments = r.arguments;
      emit(body);
    }
    // The transaction checked every decided call was pending, so what is left pending is the rest.
    const decided = new Set(records.map((r) => r.callId));
    const after = calls.filter((c) => c.state === "pending" && !decided.has(c.id));
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

  /**
   * Drive a run in this process: registered in `activeRuns` (so that nothing else here drives it and `cancel` can stop
   * it) until its driver is done. The caller's signal aborts it too.
   */
  async #driveHere(
    runId: string,
    signal: AbortSignal | undefined,
    drive: (signal: AbortSignal) => Promise<RunView>,
  ): Promise<RunView> {
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    let ended = () => {};
    const settled = new Promise<void>((resolve) => {
      ended = resolve;
    });
    activeRuns.set(runId, { controller, ended: settled });
    try {
      return await drive(controller.signal);
    } finally {
      activeRuns.delete(runId);
      signal?.removeEventListener("abort", onAbort);
      ended();
    }
  }

  /** Events of one run: stamped, redacted, and sent to the handle, the trace and `onEvent`. */
  #emitter(local: ((event: AgentEvent) => void) | undefined, runId: string): Emit {
    return (body) => {
      // Redacted at this boundary too: whatever an event carries (arguments, errors, answers) reaches consumers clean.
      // Streamed deltas already passed their StreamRedactor (which sees across deltas; this would not).
      const streamed =
        body.type === "text-delta" || body.type === "reasoning-delta" || body.type === "call-args-delta";
      // Every body is a fresh literal made for this call: stamping it is cheaper than copying it.
      const event = (this.#redact && !streamed ? redactDeep(body, this.#redact) : body) as AgentEvent;
      event.runId = runId;
      event.at = Date.now();
      local?.(event);
      this.#trace?.write(event);
      this.#options.onEvent?.(event);
    };
  }

  /** The model's own words pass the same redaction before they are stored, emitted or traced. */
  #clean<T>(value: T): T {
    return this.#redact ? redactDeep(value, this.#redact) : value;
  }
}

/**
 * The executor a run uses. Truncation and redaction belong to it alone (every result is redacted and cut once, by it),
 * so the agent's `redact` and `maxObservationChars` configure an executor the agent makes; with one given ready-made
 * they may only repeat its own settings (`redact: false` for an executor that does not redact, its limit), never
 * silently disagree with them.
 */
function executorFor(options: AgentOptions): ToolExecutor {
  const own: ToolExecutorOptions = {};
  if (options.redact !== undefined) own.redact = options.redact;
  if (options.maxObservationChars !== undefined) own.defaultMaxOutputChars = options.maxObservationChars;
  if (!(options.tools instanceof ToolExecutor)) {
    try {
      return new ToolExecutor(options.tools, own);
    } catch (error) {
      if (error instanceof RangeError) throw new AgentConfigError(`maxObservationChars: ${error.message}`);
      throw error;
    }
  }
  const executor = options.tools;
  const given: string[] = [];
  if (own.redact !== undefined && !(own.redact === false && executor.redactor === undefined))
    given.push("redact");
  if (own.defaultMaxOutputChars !== undefined && own.defaultMaxOutputChars !== executor.defaultMaxOutputChars)
    given.push("maxObservationChars");
  if (given.length > 0) {
    throw new AgentConfigError(
      `${given.join(" and ")} would disagree with the ToolExecutor given as \`tools\` (it alone redacts and cuts results): set ${given.map((k) => (k === "redact" ? "`redact`" : "`defaultMaxOutputChars`")).join(" and ")} on that executor instead (or pass its registry).`,
    );
  }
  return executor;
}

export function createAgent(options: AgentOptions): Agent {
  return new Agent(options);
}
