/**
 * A run as the UI shows it, rebuilt from the run's event log one event at a time (`applyEvent`) and completed from
 * the stored run (`reconcileWithView`) for what the log does not carry: decisions made by another program (the CLI's
 * `runs approve`), calls the policy refused without an event, runs started by `toolbridge run` (no event log at all).
 * Pure functions over immutable values: React re-renders what changed, and the tests run in Node.
 */
import type {
  AgentMessage,
  CallToolResult,
  CallView,
  JsonObject,
  RunEvent,
  RunStatus,
  RunView,
} from "../api/types.js";

/** The states a tool call shows, one-to-one with the events that lead to them. */
export type CallPhase =
  | "streaming" // call-started: the model is still writing the arguments
  | "checked" // call-finished: arguments complete (then checked against the schema)
  | "invalid" // call-invalid: unknown tool, unreadable or schema-violating arguments
  | "awaiting-approval" // approval-requested
  | "approved" // approval-decided approved, not started yet
  | "running" // tool-started
  | "done" // tool-result ok
  | "error" // tool-result with an error
  | "denied" // approval-decided denied (by a person or the policy)
  | "interrupted" // the process stopped while it ran; not run again
  | "expired"; // its run ended (cancelled) before anyone decided

export const FINAL_PHASES: ReadonlySet<CallPhase> = new Set([
  "invalid",
  "done",
  "error",
  "denied",
  "interrupted",
  "expired",
]);

/**
 * How far along a call is. A stored view may be read before events that the page has already applied (the read and
 * the live events race; under load by hundreds of milliseconds): it never moves a call back to an earlier phase.
 */
const PHASE_RANK: Record<CallPhase, number> = {
  streaming: 0,
  checked: 1,
  "awaiting-approval": 2,
  approved: 3,
  running: 4,
  invalid: 5,
  done: 5,
  error: 5,
  denied: 5,
  interrupted: 5,
  expired: 5,
};

export interface CallDecision {
  decision: "approved" | "denied";
  by: string | null;
  reason: string | null;
  /** Epoch ms (from an event) or ISO time (from the stored run). */
  at: number | string | null;
  /** The model's own arguments, when a person approved edited ones. */
  originalArguments?: JsonObject;
}

export interface CallState {
  callId: string;
  name: string;
  step: number;
  /** The arguments as the model streamed them, until they are complete. */
  argsText: string;
  arguments: JsonObject | undefined;
  phase: CallPhase;
  /** When the tool started (the server's clock, epoch ms): the live timer counts from it. */
  startedAt: number | undefined;
  durationMs: number | null | undefined;
  result: CallToolResult | undefined;
  /** The executor's status (`ok`, `tool-error`, `timeout`, …). */
  outcome: string | undefined;
  /** Why an invalid call was rejected. */
  message: string | undefined;
  decision: CallDecision | undefined;
  policy: string | undefined;
}

export type TimelineItem =
  | { kind: "text"; key: string; step: number; text: string }
  | { kind: "reasoning"; key: string; step: number; text: string }
  /** Consecutive calls, folded into one group when there are several. */
  | { kind: "calls"; key: string; step: number; callIds: string[] }
  | { kind: "error"; key: string; step: number | undefined; message: string }
  /** An event this UI has no view for (newer servers: model loading progress …), shown plainly. */
  | { kind: "notice"; key: string; eventType: string; event: RunEvent };

export interface StepInfo {
  step: number;
  startedAt: number | undefined;
  finishedAt: number | undefined;
  finishReason: string | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
  toolCalls: number | undefined;
}

export interface RunState {
  runId: string;
  lastSeq: number;
  /** The log's backlog has been delivered (the view is complete up to now). */
  loaded: boolean;
  status: RunStatus | "unknown";
  stopReason: string | null;
  answer: string | null;
  model: string | undefined;
  conversationId: string | undefined;
  startedAt: number | undefined;
  finishedAt: number | undefined;
  steps: StepInfo[];
  calls: Record<string, CallState>;
  items: TimelineItem[];
}

export function emptyRunState(runId: string): RunState {
  return {
    runId,
    lastSeq: 0,
    loaded: false,
    status: "unknown",
    stopReason: null,
    answer: null,
    model: undefined,
    conversationId: undefined,
    startedAt: undefined,
    finishedAt: undefined,
    steps: [],
    calls: {},
    items: [],
  };
}

/**
 * The reason `RunService.cancel` gives the pending calls it denies (src/server/runs-api/run-service.ts): such a call
 * was never decided by anyone, so it shows as expired.
 */
const CANCELLED_REASON = "the run was cancelled";

function newCall(callId: string, name: string, step: number): CallState {
  return {
    callId,
    name,
    step,
    argsText: "",
    arguments: undefined,
    phase: "streaming",
    startedAt: undefined,
    durationMs: undefined,
    result: undefined,
    outcome: undefined,
    message: undefined,
    decision: undefined,
    policy: undefined,
  };
}

const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);
const obj = (value: unknown): JsonObject | undefined =>
  value !== null && typeof value === "object" && !Array.isArray(value) ? (value as JsonObject) : undefined;

/** The phase a finished call's result means. */
export function phaseOfResult(outcome: string | undefined, result: CallToolResult | undefined): CallPhase {
  if (outcome === "interrupted") return "interrupted";
  if (outcome === "denied") return "denied";
  if (outcome === "invalid") return "invalid";
  if (result?.isError || (outcome !== undefined && outcome !== "ok" && outcome !== "dry-run")) return "error";
  return "done";
}

/**
 * Containers (the calls map, the items and steps arrays) created during the current `applyEvents` batch: only these
 * may be changed in place. A batch of a thousand events (a run's log, opened) then copies each container once, not
 * once per event; a state handed out is never changed afterwards (the next batch starts with a fresh set).
 */
let owned = new WeakSet<object>();

function own<T extends object>(container: T, copy: (value: T) => T): T {
  if (owned.has(container)) return container;
  const mine = copy(container);
  owned.add(mine);
  return mine;
}

function withCall(
  state: RunState,
  callId: string,
  update: (call: CallState) => CallState,
  create?: () => CallState,
): RunState {
  const existing = state.calls[callId];
  const current = existing ?? create?.();
  if (!current) return state;
  const next = existing ? state : placeCall(state, current);
  const calls = own(next.calls, (c) => ({ ...c }));
  calls[callId] = update(current);
  return next.calls === calls ? next : { ...next, calls };
}

/** Put a new call into the timeline: into the group just before it, or a new group. */
function placeCall(state: RunState, call: CallState): RunState {
  const items = own(state.items, (i) => i.slice());
  const last = items[items.length - 1];
  if (last?.kind === "calls") items[items.length - 1] = { ...last, callIds: [...last.callIds, call.callId] };
  else items.push({ kind: "calls", key: `calls-${call.callId}`, step: call.step, callIds: [call.callId] });
  const calls = own(state.calls, (c) => ({ ...c }));
  calls[call.callId] = call;
  return { ...state, items, calls };
}

function appendText(
  state: RunState,
  kind: "text" | "reasoning",
  step: number,
  text: string,
  seq: number,
): RunState {
  const items = own(state.items, (i) => i.slice());
  const last = items[items.length - 1];
  if (last?.kind === kind && last.step === step)
    items[items.length - 1] = { ...last, text: last.text + text };
  else items.push({ kind, key: `${kind}-${seq}`, step, text });
  return state.items === items ? state : { ...state, items };
}

function withStep(state: RunState, step: number, update: (info: StepInfo) => StepInfo): RunState {
  const steps = own(state.steps, (s) => s.slice());
  const index = steps.findIndex((s) => s.step === step);
  const current = steps[index] ?? {
    step,
    startedAt: undefined,
    finishedAt: undefined,
    finishReason: undefined,
    inputTokens: undefined,
    outputTokens: undefined,
    toolCalls: undefined,
  };
  if (index === -1) steps.push(update(current));
  else steps[index] = update(current);
  return state.steps === steps ? state : { ...state, steps };
}

/** One event of the run's log. Events at or before `lastSeq` are ignored (a resubscription may repeat none). */
export function applyEvent(state: RunState, seq: number, event: RunEvent): RunState {
  return applyEvents(state, [{ seq, event }]);
}

/** Several events in order, as one change (what the page draws in one frame). */
export function applyEvents(
  state: RunState,
  events: ReadonlyArray<{ seq: number; event: RunEvent }>,
): RunState {
  owned = new WeakSet();
  let next = state;
  for (const { seq, event } of events) {
    if (seq <= next.lastSeq) continue;
    next = reduce({ ...next, lastSeq: seq }, seq, event);
  }
  owned = new WeakSet();
  return next;
}

function reduce(state: RunState, seq: number, event: RunEvent): RunState {
  const step = num(event.step) ?? 0;
  switch (event.type) {
    case "run-started":
      return {
        ...state,
        status: "running",
        model: str(event.model),
        conversationId: str(event.conversationId),
        startedAt: event.at,
      };
    case "run-resumed":
      return { ...state, status: "running", stopReason: null };
    case "step-started":
      return withStep(state, step, (info) => ({ ...info, startedAt: event.at }));
    case "text-delta":
      return appendText(state, "text", step, str(event.text) ?? "", seq);
    case "reasoning-delta":
      return appendText(state, "reasoning", step, str(event.text) ?? "", seq);
    case "call-started": {
      const callId = str(event.callId) ?? `seq-${seq}`;
      return withCall(
        state,
        callId,
        (call) => call,
        () => newCall(callId, str(event.name) ?? "?", step),
      );
    }
    case "call-args-delta": {
      const callId = str(event.callId);
      if (!callId) return state;
      return withCall(state, callId, (call) => ({
        ...call,
        argsText: call.argsText + (str(event.text) ?? ""),
      }));
    }
    case "call-finished": {
      const callId = str(event.callId) ?? `seq-${seq}`;
      return withCall(
        state,
        callId,
        (call) => ({
          ...call,
          name: str(event.name) ?? call.name,
          arguments: obj(event.arguments) ?? call.arguments,
          phase: call.phase === "streaming" ? "checked" : call.phase,
        }),
        () => newCall(callId, str(event.name) ?? "?", step),
      );
    }
    case "call-invalid": {
      const callId = str(event.callId) ?? `seq-${seq}`;
      return withCall(
        state,
        callId,
        (call) => ({ ...call, phase: "invalid", message: str(event.message) }),
        () => newCall(callId, str(event.name) ?? "?", step),
      );
    }
    case "approval-requested": {
      let next = state;
      const calls = Array.isArray(event.calls) ? (event.calls as Array<JsonObject>) : [];
      for (const pending of calls) {
        const callId = str(pending.callId);
        if (!callId) continue;
        next = withCall(
          next,
          callId,
          (call) => ({
            ...call,
            arguments: obj(pending.arguments) ?? call.arguments,
            phase: FINAL_PHASES.has(call.phase) ? call.phase : "awaiting-approval",
            policy: "ask",
          }),
          () => newCall(callId, str(pending.name) ?? "?", step),
        );
      }
      return next;
    }
    case "approval-decided": {
      const callId = str(event.callId);
      if (!callId) return state;
      const approved = event.decision === "approved";
      const reason = str(event.reason) ?? null;
      return withCall(state, callId, (call) => {
        const edited = obj(event.arguments);
        const decision: CallDecision = {
          decision: approved ? "approved" : "denied",
          by: str(event.by) ?? null,
          reason,
          at: event.at,
        };
        if (edited && call.arguments) decision.originalArguments = call.arguments;
        const phase: CallPhase = approved ? "approved" : reason === CANCELLED_REASON ? "expired" : "denied";
        return {
          ...call,
          arguments: edited ?? call.arguments,
          decision,
          phase: FINAL_PHASES.has(call.phase) || call.phase === "running" ? call.phase : phase,
        };
      });
    }
    case "tool-started": {
      const callId = str(event.callId) ?? `seq-${seq}`;
      return withCall(
        state,
        callId,
        (call) => ({ ...call, phase: "running", startedAt: event.at }),
        () => newCall(callId, str(event.name) ?? "?", step),
      );
    }
    case "tool-result": {
      const callId = str(event.callId) ?? `seq-${seq}`;
      const result = obj(event.result) as CallToolResult | undefined;
      const outcome = str(event.status);
      return withCall(
        state,
        callId,
        (call) => ({
          ...call,
          result,
          outcome,
          durationMs: num(event.durationMs) ?? null,
          phase: phaseOfResult(outcome, result),
        }),
        () => newCall(callId, str(event.name) ?? "?", step),
      );
    }
    case "error":
      return {
        ...state,
        items: [
          ...state.items,
          {
            kind: "error",
            key: `error-${seq}`,
            step: num(event.step),
            message: str(event.message) ?? "error",
          },
        ],
      };
    case "step-finished": {
      const usage = obj(event.usage);
      return withStep(state, step, (info) => ({
        ...info,
        finishedAt: event.at,
        finishReason: str(event.finishReason),
        inputTokens: num(usage?.inputTokens),
        outputTokens: num(usage?.outputTokens),
        toolCalls: num(event.toolCalls),
      }));
    }
    case "run-paused":
      return { ...state, status: "paused", stopReason: "awaiting-approval" };
    case "run-finished": {
      const status = (str(event.status) as RunStatus | undefined) ?? "finished";
      const calls: Record<string, CallState> = {};
      for (const [id, call] of Object.entries(state.calls)) {
        // Nobody decided before the run ended: never offered as runnable again.
        if (call.phase === "awaiting-approval") calls[id] = { ...call, phase: "expired" };
        else if (call.phase === "running" && status === "stopped")
          calls[id] = { ...call, phase: "interrupted" };
        else calls[id] = call;
      }
      return {
        ...state,
        calls,
        status,
        stopReason: str(event.stopReason) ?? null,
        answer: str(event.answer) ?? null,
        finishedAt: event.at,
      };
    }
    default: {
      // Unknown to this UI: shown as a line; a run of the same kind (progress updates) replaces the previous one.
      const last = state.items[state.items.length - 1];
      const notice = { kind: "notice" as const, key: `notice-${seq}`, eventType: event.type, event };
      if (last?.kind === "notice" && last.eventType === event.type)
        return { ...state, items: [...state.items.slice(0, -1), { ...notice, key: last.key }] };
      return { ...state, items: [...state.items, notice] };
    }
  }
}

function decisionOf(view: CallView): CallDecision | undefined {
  const approval = view.approval;
  if (!approval || approval.decision === "pending") return undefined;
  const decision: CallDecision = {
    decision: approval.decision,
    by: approval.by,
    reason: approval.reason,
    at: approval.at,
  };
  if (approval.originalArguments) decision.originalArguments = approval.originalArguments;
  return decision;
}

/** The phase the stored call is in, as far as the stored view says. */
function phaseOfView(view: CallView, runStatus: RunStatus): CallPhase {
  const approval = view.approval;
  // Pending while the run still runs: its calls are recorded before the pause is, so it is on its way to the pause.
  if (approval?.decision === "pending")
    return runStatus === "finished" || runStatus === "stopped" ? "expired" : "awaiting-approval";
  if (approval?.decision === "denied") return approval.reason === CANCELLED_REASON ? "expired" : "denied";
  if (view.result) {
    const text = view.result.content
      ?.map((c) => ("text" in c && typeof c.text === "string" ? c.text : ""))
      .join(" ");
    if (/was interrupted: the process stopped/.test(text ?? "")) return "interrupted";
    return view.result.isError ? "error" : "done";
  }
  if (approval?.decision === "approved") return runStatus === "stopped" ? "interrupted" : "approved";
  return runStatus === "running" ? "checked" : "interrupted";
}

/**
 * Complete the state from the stored run: the status, and for each call what the log did not say. Calls the log
 * never mentioned (a run without a log) are added step by step; `messages` (the run's part of its conversation)
 * give their text. Phases already final from events stay as they are.
 */
export function reconcileWithView(state: RunState, view: RunView, messages: AgentMessage[] = []): RunState {
  owned = new WeakSet();
  try {
    return reconcile(state, view, messages);
  } finally {
    owned = new WeakSet();
  }
}

function reconcile(state: RunState, view: RunView, messages: AgentMessage[]): RunState {
  const ended = (status: RunState["status"]) => status === "finished" || status === "stopped";
  // An end the events told of stays: a view read before it still says running or paused.
  const stale = ended(state.status) && !ended(view.status);
  let next: RunState = {
    ...state,
    status: stale ? state.status : view.status,
    stopReason: stale ? state.stopReason : view.stopReason,
    answer: view.answer ?? state.answer,
  };
  const hadItems = state.items.length > 0;
  const assistant = messages.filter((m) => m.role === "assistant");
  view.steps.forEach((stepView, index) => {
    const step = index + 1;
    if (!hadItems) {
      const message = assistant[index];
      if (message?.role === "assistant") {
        if (message.reasoning) next = appendText(next, "reasoning", step, message.reasoning, -step * 2 - 1);
        if (message.content && stepView.calls.length > 0)
          next = appendText(next, "text", step, message.content, -step * 2);
      }
    }
    for (const callView of stepView.calls) {
      const phase = phaseOfView(callView, view.status);
      next = withCall(
        next,
        callView.id,
        (call) => {
          const decision = call.decision ?? decisionOf(callView);
          if (FINAL_PHASES.has(call.phase)) return decision ? { ...call, decision } : call;
          const result = callView.result ?? call.result;
          return {
            ...call,
            name: callView.name,
            arguments: callView.arguments,
            phase: PHASE_RANK[phase] < PHASE_RANK[call.phase] ? call.phase : phase,
            decision: decisionOf(callView) ?? call.decision,
            result: result ?? undefined,
            policy: callView.approval?.policy ?? call.policy,
          };
        },
        () => ({ ...newCall(callView.id, callView.name, step), phase }),
      );
    }
  });
  if (
    !hadItems &&
    view.answer &&
    !next.items.some((item) => item.kind === "text" && item.text.trim() === view.answer?.trim())
  )
    next = appendText(next, "text", view.steps.length + 1, view.answer, -1);
  return next;
}

/** Plain words for why a run stopped, or undefined for a normal answer. */
export function describeStopReason(
  stopReason: string | null,
  context: { steps?: number; toolCalls?: number } = {},
): string | undefined {
  switch (stopReason) {
    case null:
    case "final-answer":
      return undefined;
    case "awaiting-approval":
      return "waiting for a decision on its tool calls";
    case "max-steps":
      return `stopped after ${context.steps ?? "the maximum number of"} steps (the run's step limit)`;
    case "max-tool-calls":
      return `stopped after ${context.toolCalls ?? "the maximum number of"} tool calls (the run's tool-call limit)`;
    case "step-timeout":
      return "stopped: a step took longer than the step time limit";
    case "timeout":
      return "stopped: the run took longer than its time limit";
    case "max-consecutive-failures":
      return "stopped after too many failed steps in a row";
    case "max-repairs":
      return "stopped: the model kept writing invalid tool calls";
    case "model-error":
      return "stopped: the model failed";
    case "aborted":
      return "stopped: cancelled";
    case "length":
      return "the answer was cut at the length limit";
    case "interrupted":
      return "stopped: the process driving it ended";
    default:
      return `stopped (${stopReason})`;
  }
}
