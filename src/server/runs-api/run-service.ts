import { RunNotFoundError, RunStateError } from "../../agent/agent-errors.js";
import { type Agent, type AgentOptions, createAgent, type DecideResult } from "../../agent/create-agent.js";
import type { ApprovalDecision } from "../../agent/decide-calls.js";
import type { AgentEvent, PendingCall } from "../../agent/events.js";
import { type RunLimits, resolveLimits } from "../../agent/limits.js";
import type { RunHandle } from "../../agent/run-handle.js";
import { activeRuns, newRunId, ownerIsGone, RUN_OWNER } from "../../agent/run-ownership.js";
import { buildRunView, type RunView } from "../../agent/run-view.js";
import type { AgentMessage } from "../../core/agent-message.js";
import type { ToolChoice } from "../../core/language-model.js";
import type { RunEventLog } from "../../store/run-event-log.js";
import { RunFencedError, type RunRecord, type RunStatus, type RunStore } from "../../store/store.js";
import {
  ConversationHasUnfinishedRunsError,
  type ConversationRecords,
  type UnfinishedRun,
} from "../../store/unfinished-runs.js";
import type { ApprovalPolicyConfig } from "../../tools/approval-policy.js";
import type { ToolExecutor } from "../../tools/tool-executor.js";
import { badRequest, conflict, notFound } from "../http-error.js";
import { CancelRequestFollower } from "./cancel-request-follower.js";
import {
  type ConversationSummary,
  getConversation,
  listConversations,
  listRuns,
  type RunSummary,
} from "./run-listings.js";
import { modelOnDemand, type RunModels } from "./run-models.js";
import { type RunEventListener, RunSubscriptions } from "./run-subscriptions.js";

export interface DeleteConversationOptions {
  /**
   * Cancel the conversation's runs that are not over first (a paused run's pending calls are denied by `by`, so the
   * audit log keeps who dropped them), then delete. Without it such a run makes the delete a 409 that names it.
   */
  cancelRuns?: boolean;
  /** Who deletes; recorded as who denied the calls of the runs it cancels. Default "api". */
  by?: string;
}

export interface StartRunInput {
  message: string;
  conversationId?: string;
  /** A name from `models.names()`; default `models.defaultName`. */
  model?: string;
  toolChoice?: ToolChoice;
  limits?: Partial<RunLimits>;
}

export type { SequencedEvent } from "./run-subscriptions.js";

export interface RunServiceOptions {
  models: RunModels;
  store: RunStore;
  events: RunEventLog;
  executor: ToolExecutor;
  /** Per-tool approval policy, evaluated per call (so a change applies to the next call of the next run). */
  approval?: ApprovalPolicyConfig;
  /** Further options every agent gets (system prompt, default limits …); redaction and result limits are the executor's. */
  agent?: Omit<
    AgentOptions,
    "model" | "tools" | "store" | "approval" | "onEvent" | "toolChoice" | "redact" | "maxObservationChars"
  >;
  /**
   * Deletes and titles conversations (SqliteConversationEraser and SqliteConversationTitles, or
   * PostgresConversationEraser); without it, DELETE and rename of a conversation are refused and listings carry no
   * titles.
   */
  conversations?: ConversationRecords;
  /**
   * How often a subscriber of a run this process does not drive reads the log (another process on the same database
   * may drive it). Default 500 ms; 0 turns it off. With a log that wakes its readers (PostgreSQL's NOTIFY), at most
   * every 2 s: the notification brings events sooner, the poll is for one that was lost.
   */
  pollMs?: number;
  /**
   * With a store that owns runs by leases (PostgreSQL): how often this instance looks for runs to take over — paused
   * runs a decision made resumable, runs whose owner's lease expired — besides when a notification says so. Default
   * 2000 ms.
   */
  sweepMs?: number;
  /**
   * Whether `start` waits for the run's record before it answers. A record another instance (or process) can read is
   * what lets a client that got the id here follow the run on any instance behind a load balancer; the only reason
   * not to wait is a store that is not open yet (the first run after an SQLite `serve` starts), whose opening would
   * hold the answer back — that run is readable here at once, and elsewhere once its record is written. Default: never.
   */
  recordBeforeAnswer?: () => boolean;
  /**
   * How long `cancel` waits for the instance (or process) that drives the run to stop it, before it answers
   * `status: "cancelling"` (the request stays recorded and is carried out). Default 10 s.
   */
  cancelWaitMs?: number;
  /**
   * How often this process reads the cancel requests of the runs it drives (requests made on another instance or
   * process). Default 500 ms; with a store that notifies (PostgreSQL) 2 s, the notification bringing them at once.
   */
  cancelPollMs?: number;
  /** Events that could not be logged (the database failed); default: written to stderr. */
  onError?: (error: unknown) => void;
}

/** What `cancel` answers: the run's status once it ended, or `cancelling` while its driver elsewhere has not yet. */
export interface CancelResult {
  runId: string;
  status: RunStatus | "cancelling";
}

/** The key of a run's `options` under which the service keeps what it needs to rebuild the run's agent. */
const SERVER_OPTION = "server";

/** What a run started by the service keeps in its record, so another process can rebuild its agent. */
interface ServerRunMetadata {
  model: string;
  toolChoice?: ToolChoice;
}

interface LiveRun {
  conversationId: string;
  controller: AbortController;
  done: Promise<void>;
}

/**
 * Drives runs for the HTTP and WebSocket APIs. Every event a run emits is appended to the event log and only
 * delivered to subscribers once committed there, so whatever a client saw survives a crash and a client that
 * reconnects asks the log for what it missed (`subscribe(runId, after)`): nothing lost, nothing twice.
 *
 * Agents: one per model name and tool choice, sharing the store, the executor and the approval policy. A decision
 * that leaves nothing pending resumes the run here, also when it was paused by an earlier process; at start,
 * `recover()` resumes runs left `running` by a process that is gone (paused runs stay paused and answerable).
 */
export class RunService {
  readonly store: RunStore;
  readonly events: RunEventLog;
  readonly models: RunModels;
  readonly #options: RunServiceOptions;
  readonly #agents = new Map<string, Agent>();
  readonly #live = new Map<string, LiveRun>();
  readonly #subscriptions: RunSubscriptions;
  /**
   * Runs started here whose record does not exist yet: settled by their first event (the record exists from then
   * on) or by a failure before it. A read of such a run waits for that instead of answering 404.
   */
  readonly #starting = new Map<string, { recorded: () => void; settled: Promise<void> }>();
  /** Why a run failed before its record existed (the store could not be opened …), for whoever asks about it. */
  readonly #failedStarts = new Map<string, unknown>();
  readonly #serial = new Map<string, Promise<unknown>>();
  readonly #appends = new Set<Promise<unknown>>();
  readonly #stopFollowingLeases: Array<() => void> = [];
  /** The store's leases, once `recover()` found it has them (asking the store earlier would open its database). */
  #leases: NonNullable<RunStore["leases"]> | undefined;
  #sweep: ReturnType<typeof setInterval> | undefined;
  #sweeping: Promise<void> | undefined;
  #sweepAgain = false;
  #cancelFollower: CancelRequestFollower | undefined;
  #closed = false;

  constructor(options: RunServiceOptions) {
    this.#options = options;
    this.store = options.store;
    this.events = options.events;
    this.models = options.models;
    this.#subscriptions = new RunSubscriptions({
      events: options.events,
      drivenHere: (runId) => this.#live.has(runId),
      ...(options.pollMs !== undefined ? { pollMs: options.pollMs } : {}),
    });
  }

  /** Whether a process of this service drives the run right now. */
  isLive(runId: string): boolean {
    return this.#live.has(runId);
  }

  /**
   * Start a run; resolves with its id and conversation at once — before the store is opened (unless the run continues
   * a conversation, which is looked up first) and before the model is loaded. The run writes its record, then loads
   * the model (model-loading / model-loaded events) and goes on; a model that cannot be loaded ends it with the error.
   */
  async start(input: StartRunInput): Promise<{ runId: string; conversationId: string }> {
    this.#checkOpen();
    const modelName = await this.#checkStart(input);
    const metadata: ServerRunMetadata = { model: modelName };
    if (input.toolChoice !== undefined) metadata.toolChoice = input.toolChoice;
    const agent = this.#agent(metadata);
    // Checked with no await before #drive registers the run: two starts on one conversation cannot both pass.
    const busy = [...this.#live.entries()].find(([, live]) => live.conversationId === input.conversationId);
    if (busy) {
      throw conflict(
        `Conversation ${input.conversationId} has a run in progress (${busy[0]}); wait for it to finish or cancel it.`,
        "run_in_progress",
      );
    }
    const runId = newRunId();
    const conversationId = input.conversationId ?? `conv_${runId.slice(4)}`;
    let recorded = () => {};
    const started = new Promise<void>((resolve) => {
      recorded = resolve;
    });
    const done = this.#drive(runId, conversationId, (signal) =>
      agent.run(input.message, {
        runId,
        conversationId,
        signal,
        ...(input.limits ? { limits: input.limits } : {}),
        metadata: { [SERVER_OPTION]: metadata },
      }),
    );
    // The run's record exists once it emitted run-started; until then a read of the run waits for it (or its failure).
    const settled = Promise.race([started, done.then(() => started)]).catch(() => {});
    this.#starting.set(runId, { recorded, settled });
    if (this.#options.recordBeforeAnswer?.()) {
      await settled;
      this.#throwIfFailedToStart(runId);
    }
    return { runId, conversationId };
  }

  /** What makes a start impossible, refused before anything is written: resolves to the model's name. */
  async #checkStart(input: StartRunInput): Promise<string> {
    const modelName = input.model ?? this.models.defaultName;
    if (!this.models.names().includes(modelName)) {
      throw badRequest(
        `Unknown model "${modelName}". Available: ${this.models.names().join(", ") || "none"}.`,
        "model",
        "model_not_found",
      );
    }
    const named = typeof input.toolChoice === "object" ? input.toolChoice.name : undefined;
    if (named !== undefined && !this.#options.executor.registry.get(named)) {
      throw badRequest(
        `toolChoice names "${named}", which is not a tool here. Tools: ${this.#options.executor.registry.names().join(", ") || "none"}.`,
        "toolChoice",
        "tool_not_found",
      );
    }
    try {
      resolveLimits(input.limits);
    } catch (error) {
      throw badRequest((error as Error).message, "limits", "invalid_limits");
    }
    if (input.conversationId !== undefined) {
      const known = (await this.store.listMessages(input.conversationId)).length > 0;
      if (!known)
        throw notFound(
          `No conversation "${input.conversationId}"; omit conversationId to start a new one.`,
          "conversation_not_found",
        );
    }
    return modelName;
  }

  /**
   * Deliver the run's events with seq > `after` to `listener`, in order and each once (see RunSubscriptions). Resolves
   * to an unsubscribe function once the backlog was delivered.
   */
  async subscribe(runId: string, after: number, listener: RunEventListener): Promise<() => void> {
    this.#throwIfFailedToStart(runId);
    if (!this.#live.has(runId) && !(await this.store.getRun(runId))) throw new RunNotFoundError(runId);
    return this.#subscriptions.subscribe(runId, after, listener);
  }

  /**
   * Decisions on pending calls (any subset), all or none. Decisions of one run are handled one at a time, so that the
   * one leaving nothing pending sees it and resumes the run (in this process, whoever paused it).
   */
  decide(runId: string, decisions: readonly ApprovalDecision[], by: string): Promise<DecideResult> {
    this.#checkOpen();
    return this.#oneAtATime(runId, async () => {
      const run = await this.#run(runId);
      // Whether the decisions can be accepted is the agent's to say (a DecisionError with its reason, mapped to a
      // status by the routes).
      const result = await this.#agentForRun(run).decide(runId, decisions, { by });
      if (result.ready) this.#resumeIfIdle(run);
      return result;
    });
  }

  /**
   * Stop a run, whichever process drives it. The request is recorded on the run first (RunStore.requestCancel: who
   * and why, in the audit log too), then:
   * - a run driven here is aborted; a paused one (or one whose driver is gone) is stopped here at once, its pending
   *   calls denied by `by` with `reason`;
   * - a run another instance or process drives is stopped there: its driver hears of the request (a notification, or
   *   its poll) and aborts it. This waits for the run to end, up to `cancelWaitMs`, then answers `cancelling`: the
   *   request stays on the run, and whoever drives it next ends it instead of going on.
   * A run that ends `aborted` has its pending calls denied (none is left to decide on a stopped run). Runs another
   * program drives (`toolbridge run`, which hears no requests) are refused with 409: stop them there.
   */
  async cancel(runId: string, by = "api", reason = "the run was cancelled"): Promise<CancelResult> {
    this.#checkOpen();
    const first = this.#live.has(runId) ? undefined : await this.#run(runId);
    // Refused before a request is recorded, in the agent's words.
    if (first && isOver(first)) throw conflict(RunStateError.nothingToCancel(first).message, "run_ended");
    if (first?.status === "running" && !ownerIsGone(first.owner, first.leaseUntil))
      this.#checkCancellableElsewhere(first);
    await this.store.requestCancel?.(runId, { by, reason });
    const deadline = Date.now() + (this.#options.cancelWaitMs ?? 10_000);
    for (;;) {
      const live = this.#live.get(runId);
      if (live) {
        // It may pause on its way out (calls recorded pending): then it is stopped as a paused run below.
        live.controller.abort();
        await live.done;
      }
      const outcome = await this.#oneAtATime(runId, () => this.#stopUnlessDrivenElsewhere(runId, by, reason));
      if (outcome) return outcome;
      if (Date.now() >= deadline) return { runId, status: "cancelling" };
      await this.#waitForNews(runId, deadline);
    }
  }

  /**
   * One look at a run being cancelled: over → its status; paused (or its driver gone) → stopped here; driven here →
   * undefined (aborted already: look again); driven elsewhere → undefined, its driver stops it.
   */
  async #stopUnlessDrivenElsewhere(
    runId: string,
    by: string,
    reason: string,
  ): Promise<CancelResult | undefined> {
    if (this.#live.has(runId)) return undefined;
    const run = await this.#run(runId);
    if (isOver(run)) return { runId, status: run.status };
    if (run.status === "paused") return this.#stopHere(run, by, reason);
    if (!ownerIsGone(run.owner, run.leaseUntil)) {
      this.#checkCancellableElsewhere(run);
      return undefined;
    }
    if (SERVER_OPTION in run.options) {
      // Its driver died (or its lease expired): resumed here to end it, so that a call it left executing is reported
      // interrupted and approved ones are cancelled before they start. Another instance may claim it first: it finds
      // the request and does the same.
      this.#drive(run.id, run.conversationId, (signal) =>
        this.#agentForRun(run).resume(run.id, { signal }),
      ).catch(() => {});
      this.#live.get(run.id)?.controller.abort();
      return undefined;
    }
    // A CLI run whose process is gone: nothing can drive it here (its model and tools are the CLI's).
    return this.#stopHere(run, by, reason);
  }

  /** A run another live process drives can be stopped there only if it hears requests: a run of a run service. */
  #checkCancellableElsewhere(run: RunRecord): void {
    if (!this.store.requestCancel || !(SERVER_OPTION in run.options))
      throw conflict(
        `Run ${run.id} is driven by process ${run.owner}${SERVER_OPTION in run.options ? "" : " (toolbridge run or a program on the same database)"}, which cannot be told to stop from here; stop it there.`,
        "run_elsewhere",
      );
  }

  /**
   * Stop a run nobody drives (paused, or its driver gone) here, through the agent's `cancel`: pending calls denied by
   * `by`, `stopped` / `aborted`, announced. Undefined when someone resumed, took over or stopped it first (look again).
   */
  async #stopHere(run: RunRecord, by: string, reason: string): Promise<CancelResult | undefined> {
    try {
      return await this.#agentForRun(run).cancel(run.id, { by, reason });
    } catch (error) {
      if (error instanceof RunStateError) return undefined;
      throw error;
    }
  }

  /** Wait until the run's log may have news (another instance logged an event) or a short while passed. */
  #waitForNews(runId: string, deadline: number): Promise<void> {
    return new Promise((resolve) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let unwatch: (() => void) | undefined;
      let settled = false;
      const done = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        unwatch?.();
        resolve();
      };
      unwatch = this.events.watch?.(runId, done);
      // Without a log that tells of news, looked at often; with one, the wait is only a fallback.
      timer = setTimeout(done, Math.max(0, Math.min(unwatch ? 500 : 100, deadline - Date.now())));
      if (settled) unwatch?.();
    });
  }

  async getRun(runId: string): Promise<RunView> {
    await this.#starting.get(runId)?.settled;
    this.#throwIfFailedToStart(runId);
    return buildRunView(this.store, runId);
  }

  listRuns(options: { status?: RunStatus; tool?: string; limit?: number; cursor?: string } = {}) {
    return listRuns(this.store, options);
  }

  listConversations(limit?: number): Promise<ConversationSummary[]> {
    const conversations = this.#options.conversations;
    return listConversations(
      this.store,
      limit,
      conversations?.titles ? (ids) => conversations.titles?.(ids) ?? Promise.resolve(new Map()) : undefined,
    );
  }

  /** Give a conversation a title (what listings show). */
  async renameConversation(
    conversationId: string,
    title: string,
  ): Promise<{ conversationId: string; title: string }> {
    this.#checkOpen();
    const rename = this.#options.conversations?.rename;
    if (!rename)
      throw conflict(
        "This server's store cannot rename conversations (only the SQLite store can).",
        "unsupported_by_store",
      );
    if (!(await rename.call(this.#options.conversations, conversationId, title)))
      throw notFound(`No conversation "${conversationId}".`, "conversation_not_found");
    return { conversationId, title };
  }

  async getConversation(conversationId: string): Promise<{
    conversationId: string;
    title: string | null;
    messages: AgentMessage[];
    runs: RunSummary[];
  }> {
    const conversation = await getConversation(this.store, conversationId);
    const titles = await this.#options.conversations?.titles?.([conversationId]);
    return { ...conversation, title: titles?.get(conversationId) ?? null };
  }

  /**
   * Delete a conversation with its runs and their event logs. Refused (409, naming them) while one of its runs is not
   * over — running, or paused for a decision nobody has made yet — unless `cancelRuns` asks to cancel them first.
   * The store refuses too, in the delete's own transaction, so a run that started or paused meanwhile is never lost.
   */
  async deleteConversation(
    conversationId: string,
    options: DeleteConversationOptions = {},
  ): Promise<{ conversationId: string; deletedRuns: string[]; cancelledRuns: string[] }> {
    this.#checkOpen();
    if ((await this.store.listMessages(conversationId)).length === 0)
      throw notFound(`No conversation "${conversationId}".`, "conversation_not_found");
    const eraser = this.#options.conversations;
    if (!eraser)
      throw conflict(
        "This server's store cannot delete conversations (it was given none to delete them with).",
      );
    const unfinished = await this.#unfinishedRuns(conversationId, eraser);
    if (unfinished.length > 0 && options.cancelRuns !== true)
      throw conflict(unfinishedRunsMessage(conversationId, unfinished), "run_in_progress");
    const cancelledRuns: string[] = [];
    for (const run of unfinished) {
      let result: CancelResult;
      try {
        result = await this.cancel(
          run.id,
          options.by ?? "api",
          "the run was cancelled: its conversation was deleted",
        );
      } catch (error) {
        // It ended by itself meanwhile: nothing left to cancel.
        const now = await this.store.getRun(run.id);
        if (now?.status === "finished" || now?.status === "stopped") continue;
        throw error;
      }
      // Its driver on another instance has not stopped it yet: deleting now would pull the run from under it.
      if (result.status === "cancelling")
        throw conflict(
          `Conversation ${conversationId} has a run (${run.id}) that another instance is still stopping; try again in a moment.`,
          "run_in_progress",
        );
      cancelledRuns.push(run.id);
    }
    // The cancelled runs' last events reach their subscribers (and the log) before the logs are deleted.
    await Promise.allSettled([...this.#appends]);
    let runIds: string[];
    try {
      runIds = await eraser.erase(conversationId);
    } catch (error) {
      if (error instanceof ConversationHasUnfinishedRunsError)
        throw conflict(unfinishedRunsMessage(conversationId, error.runs), "run_in_progress");
      throw error;
    }
    await this.events.deleteRuns(runIds);
    return { conversationId, deletedRuns: runIds, cancelledRuns };
  }

  /** The conversation's runs that are not over: those this process drives, and those the store has running or paused. */
  async #unfinishedRuns(conversationId: string, eraser: ConversationRecords): Promise<UnfinishedRun[]> {
    const runs = await eraser.unfinishedRuns(conversationId);
    for (const [id, live] of this.#live) {
      if (live.conversationId === conversationId && !runs.some((r) => r.id === id))
        runs.push({ id, status: "running", owner: RUN_OWNER });
    }
    return runs;
  }

  /** The pending calls of a paused run (none otherwise): what a client that (re)connects must still answer. */
  async pending(runId: string): Promise<PendingCall[]> {
    const run = await this.store.getRun(runId);
    if (run?.status !== "paused") return [];
    const calls = await this.store.listToolCalls(runId, run.stepCount);
    return calls
      .filter((c) => c.state === "pending")
      .map((c) => ({ callId: c.id, name: c.name, arguments: c.arguments }));
  }

  /**
   * Go on with a paused run of this server whose calls were all decided somewhere else (`toolbridge runs approve`,
   * another `serve` on the same database), which does not resume it. Runs another program started (`toolbridge run`)
   * are left to it: it knows their model and tools. True when the run is resumed here.
   */
  resumeIfDecided(runId: string): Promise<boolean> {
    if (this.#closed) return Promise.resolve(false);
    return this.#oneAtATime(runId, async () => {
      if (this.#live.has(runId) || activeRuns.has(runId)) return false;
      const run = await this.store.getRun(runId);
      if (run?.status !== "paused" || (run.options as { server?: unknown }).server === undefined)
        return false;
      if ((await this.pending(runId)).length > 0) return false;
      this.#resumeIfIdle(run);
      return true;
    });
  }

  /**
   * Resume what a dead process left `running` (its owner is gone); paused runs stay paused, answerable through
   * `decide`. Resolves once they are started, with their ids.
   *
   * With a store that owns runs by leases (PostgreSQL, several instances), this instance goes on taking runs over
   * from then on: a paused run that a decision on any instance left with nothing pending, a run whose owner's lease
   * expired (its instance crashed, was paused or cut off). It looks whenever the store says one may be there
   * (a notification) and every `sweepMs`; the claim (`FOR UPDATE SKIP LOCKED`) hands each run to one instance.
   */
  async recover(): Promise<string[]> {
    // Which runs a gone process left is the agent's to say; driving them is this service's (the agent for each run's
    // model, tracked as live here).
    const resumed = await this.#agent({ model: this.models.defaultName }).recover({
      resume: (run) => this.#resumeIfIdle(run),
    });
    this.#takeOverRuns();
    return resumed;
  }

  #takeOverRuns(): void {
    const leases = this.store.leases;
    if (!leases || this.#leases || this.#closed) return;
    this.#leases = leases;
    // Another instance took over a run this one drives (its lease expired: the process was paused, or cut off from
    // the database): stop driving it. Its writes are fenced already; this stops its model and tools too.
    this.#stopFollowingLeases.push(leases.onLost((runId) => this.#live.get(runId)?.controller.abort()));
    const sweep = () => void this.#sweepOnce(leases);
    this.#stopFollowingLeases.push(leases.onClaimable(sweep));
    this.#sweep = setInterval(sweep, this.#options.sweepMs ?? 2000);
    this.#sweep.unref?.();
    sweep();
  }

  /** Claim and drive runs until none is left to claim (one sweep at a time; one asked for meanwhile runs after). */
  #sweepOnce(leases: NonNullable<RunStore["leases"]>): Promise<void> {
    if (this.#sweeping) {
      this.#sweepAgain = true;
      return this.#sweeping;
    }
    this.#sweeping = (async () => {
      do {
        this.#sweepAgain = false;
        while (!this.#closed) {
          // Only the runs a run service started (it can rebuild their agent): a CLI run is resumed by the CLI.
          const run = await leases.claimNext(RUN_OWNER, SERVER_OPTION).catch((error: unknown) => {
            (this.#options.onError ?? defaultOnError)(error);
            return undefined;
          });
          if (!run) break;
          // Driven here already (its lease ran out under a slow heartbeat and this instance claimed it back): the
          // driver goes on, with the new epoch.
          if (this.#live.has(run.id) || activeRuns.has(run.id)) continue;
          this.#drive(run.id, run.conversationId, async (signal) =>
            this.#agentForRun(run).resume(run.id, { signal, claimed: true }),
          ).catch(() => {});
          // Someone asked to stop it (its last driver died first, or it was paused): it is ended, not continued.
          if (run.cancelRequest) this.#live.get(run.id)?.controller.abort();
        }
      } while (this.#sweepAgain && !this.#closed);
    })().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  /** Wait until the run's driver in this process (if any) is done. */
  async settled(runId: string): Promise<void> {
    await this.#live.get(runId)?.done;
    await this.events.flush();
  }

  /** Abort live runs, wait for them and for the log; the store is the caller's. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#sweep) clearInterval(this.#sweep);
    this.#cancelFollower?.close();
    for (const stop of this.#stopFollowingLeases.splice(0)) stop();
    await this.#sweeping;
    // Several instances: the runs driven here are handed over (another instance takes them over at once) rather than
    // stopped; what this process still does for them is written nowhere.
    await this.#leases?.handOver();
    const live = [...this.#live.values()];
    for (const run of live) run.controller.abort();
    await Promise.allSettled(live.map((run) => run.done));
    // Every append is tracked: waiting for them flushes the log (without touching a log that never got an event).
    await Promise.allSettled([...this.#appends]);
    this.#subscriptions.clear();
  }

  #checkOpen(): void {
    if (this.#closed) throw conflict("The server is shutting down; try again in a moment.", "shutting_down");
  }

  async #run(runId: string): Promise<RunRecord> {
    const run = await this.store.getRun(runId);
    if (!run) throw new RunNotFoundError(runId);
    return run;
  }

  #oneAtATime<T>(runId: string, body: () => Promise<T>): Promise<T> {
    const previous = this.#serial.get(runId) ?? Promise.resolve();
    const next = previous.then(body, body);
    const tail = next.catch(() => {});
    this.#serial.set(runId, tail);
    void tail.then(() => {
      if (this.#serial.get(runId) === tail) this.#serial.delete(runId);
    });
    return next;
  }

  /** The agent for a model and tool choice, made once; its model is loaded by the first run that needs it. */
  #agent(metadata: ServerRunMetadata): Agent {
    const key = JSON.stringify([metadata.model, metadata.toolChoice ?? "auto"]);
    let agent = this.#agents.get(key);
    if (!agent) {
      // A model that must only see some tools (the bundled demo model: those it was trained on) is offered those.
      const runTools = this.models.runToolsOf?.(metadata.model);
      agent = createAgent({
        ...this.#options.agent,
        ...(runTools ? { allow: [...runTools] } : {}),
        model: modelOnDemand(this.models, metadata.model),
        tools: this.#options.executor,
        store: this.store,
        ...(this.#options.approval ? { approval: this.#options.approval } : {}),
        ...(metadata.toolChoice ? { toolChoice: metadata.toolChoice } : {}),
        onEvent: (event) => this.#record(event),
      });
      this.#agents.set(key, agent);
    }
    return agent;
  }

  #agentForRun(run: RunRecord): Agent {
    const stored = run.options[SERVER_OPTION] as Partial<ServerRunMetadata> | undefined;
    const model =
      stored?.model && this.models.names().includes(stored.model) ? stored.model : this.models.defaultName;
    return this.#agent({ model, ...(stored?.toolChoice ? { toolChoice: stored.toolChoice } : {}) });
  }

  /** A run that failed before it had a record answers with that failure, not with "no such run". */
  #throwIfFailedToStart(runId: string): void {
    if (this.#failedStarts.has(runId)) throw this.#failedStarts.get(runId);
  }

  /** Log the event, then hand it to the run's subscribers: nobody sees an event the log does not have. */
  #record(event: AgentEvent): void {
    const runId = event.runId;
    const starting = this.#starting.get(runId);
    if (starting) {
      this.#starting.delete(runId);
      starting.recorded();
    }
    const appended = this.events.append(runId, event).then(
      (seq) => this.#subscriptions.publish(runId, { seq, event }),
      (error: unknown) => {
        // A driver whose run was taken over by another instance: its last events are not logged, by design.
        if (!(error instanceof RunFencedError)) (this.#options.onError ?? defaultOnError)(error);
      },
    );
    this.#appends.add(appended);
    void appended.finally(() => this.#appends.delete(appended));
  }

  /** Drive a run in this process; it counts as live from this call on (so nothing else resumes it meanwhile). */
  #drive(
    runId: string,
    conversationId: string,
    start: (signal: AbortSignal) => RunHandle | Promise<RunHandle>,
  ): Promise<void> {
    const controller = new AbortController();
    // Started in the next turn of the event loop, once the answer to whoever started it is on its way: opening the
    // store and loading the model begin with synchronous work (better-sqlite3, node-llama-cpp's module) that would
    // otherwise hold that answer back.
    const done = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => {
        this.#followCancelRequests();
        return start(controller.signal);
      })
      .then((handle) => handle.result)
      .then(
        async (view) => {
          this.#live.delete(runId);
          if (view.status === "paused" && !this.#closed) await this.#afterPause(runId);
        },
        (error: unknown) => {
          this.#live.delete(runId);
          this.#driverFailed(runId, error);
          throw error;
        },
      );
    this.#live.set(runId, { conversationId, controller, done: done.catch(() => {}) });
    return done;
  }

  /** A run driven here paused: what happened meanwhile may mean it is not to wait for decisions. */
  async #afterPause(runId: string): Promise<void> {
    const run = await this.store.getRun(runId);
    if (run?.status !== "paused") return;
    // Asked to stop while on its way to the pause (its calls were recorded pending before the abort came): stopped
    // now, as a paused run is, rather than left waiting for decisions nobody will make.
    if (run.cancelRequest) {
      const { by, reason } = run.cancelRequest;
      await this.#oneAtATime(runId, () => this.#stopHere(run, by, reason)).catch((error: unknown) =>
        (this.#options.onError ?? defaultOnError)(error),
      );
      return;
    }
    // A decision recorded while the run was still on its way to pausing found it running: resume now.
    if ((await this.pending(runId)).length === 0) this.#resumeIfIdle(run);
  }

  /** A driver here failed: kept for whoever asks about a run that never got its record, reported unless expected. */
  #driverFailed(runId: string, error: unknown): void {
    if (this.#starting.delete(runId)) {
      // It failed before its record existed: the client already has its id, so keep the reason (a few).
      this.#failedStarts.set(runId, error);
      if (this.#failedStarts.size > 100) this.#failedStarts.delete(this.#failedStarts.keys().next().value!);
    }
    // A run taken over by another instance goes on there; one another process resumed first, there.
    if (!(error instanceof RunStateError) && !(error instanceof RunFencedError))
      (this.#options.onError ?? defaultOnError)(error);
  }

  #resumeIfIdle(run: RunRecord): void {
    if (this.#closed || this.#live.has(run.id) || activeRuns.has(run.id)) return;
    // With leases, claiming a resumable run of the service (or one whose owner's lease expired) is the sweep's alone:
    // a resume here and the sweep (woken by the same decision's notification) must not both claim it. A run left
    // running by nobody (a failure released it) or started by the CLI is not the sweep's.
    const leases = this.store.leases;
    if (leases && SERVER_OPTION in run.options && !(run.status === "running" && run.owner === null)) {
      void this.#sweepOnce(leases);
      return;
    }
    this.#drive(run.id, run.conversationId, (signal) =>
      this.#agentForRun(run).resume(run.id, { signal }),
    ).catch(() => {});
    if (run.cancelRequest) this.#live.get(run.id)?.controller.abort();
  }

  /**
   * From the first run driven here on: abort a run driven here when a cancel request for it is recorded anywhere
   * (another instance, another process on the same database). Started then, not before: the store is open by then.
   */
  #followCancelRequests(): void {
    if (this.#cancelFollower || this.#closed || !this.store.listCancelRequests) return;
    const leases = this.store.leases;
    this.#cancelFollower = new CancelRequestFollower({
      store: this.store,
      driven: () => [...this.#live.keys()],
      onRequest: (runId) => this.#live.get(runId)?.controller.abort(),
      pollMs: this.#options.cancelPollMs ?? (leases ? 2000 : 500),
      onError: this.#options.onError ?? defaultOnError,
    });
  }
}

/** The 409 of a delete refused for runs that are not over: which, and what to do about each kind. */
function unfinishedRunsMessage(conversationId: string, runs: readonly UnfinishedRun[]): string {
  const ids = (status: UnfinishedRun["status"]) => runs.filter((r) => r.status === status).map((r) => r.id);
  const running = ids("running");
  const paused = ids("paused");
  const parts: string[] = [];
  if (running.length > 0)
    parts.push(
      `${running.length === 1 ? "a run in progress" : "runs in progress"} (${running.join(", ")}); cancel ${running.length === 1 ? "it" : "them"} (POST /api/runs/${running[0]}/cancel) first`,
    );
  if (paused.length > 0)
    parts.push(
      `${paused.length === 1 ? "a run paused for approval" : "runs paused for approval"} (${paused.join(", ")}), waiting for a decision that deleting would lose; decide (POST /api/runs/${paused[0]}/decisions) or cancel ${paused.length === 1 ? "it" : "them"} first`,
    );
  return `Conversation ${conversationId} has ${parts.join(", and ")}; or delete with ?cancelRuns=true to cancel ${runs.length === 1 ? "it" : "them"} (pending calls are denied) and delete the conversation.`;
}

function isOver(run: RunRecord): run is RunRecord & { status: "finished" | "stopped" } {
  return run.status === "finished" || run.status === "stopped";
}

function defaultOnError(error: unknown): void {
  process.stderr.write(`toolbridge: run service: ${(error as Error)?.message ?? String(error)}\n`);
}
