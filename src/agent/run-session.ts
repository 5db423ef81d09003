import type { AgentMessage } from "../core/agent-message.js";
import type { RunPatch, RunRecord, RunStore, ToolCallFinish, ToolCallRecord } from "../store/store.js";
import { type RunLimits, resolveLimits } from "./limits.js";
import { type RunView, toRunView } from "./run-view.js";

export type RecordedTurn = Omit<Parameters<RunStore["recordTurn"]>[0], "runId" | "conversationId">;

/**
 * What a run handle keeps in memory while it drives a run, so that no step reads back what the run itself wrote: the
 * run record (the one owner of its counters: steps, tool calls, failures, repairs, active time), the conversation's
 * transcript, the steps recorded and every tool call of the run. Built as a run starts, or loaded from the store once
 * when a run resumes (the store is the source of truth across processes); changed only after a write has committed.
 */
export class RunSession {
  readonly limits: RunLimits;
  readonly #usedIds: Set<string>;
  readonly #segmentStart = performance.now();
  readonly #activeBefore: number;

  constructor(
    readonly run: RunRecord,
    public messages: AgentMessage[],
    readonly steps: number[],
    public calls: ToolCallRecord[],
  ) {
    this.limits = resolveLimits(run.limits as Partial<RunLimits>);
    this.#usedIds = new Set(calls.map((c) => c.id));
    this.#activeBefore = run.activeMs;
  }

  get id(): string {
    return this.run.id;
  }

  /** Milliseconds this run has been driven, over every process that drove it; time paused does not count. */
  activeMs(): number {
    return Math.round(this.#activeBefore + (performance.now() - this.#segmentStart));
  }

  /**
   * Call ids for one model turn: the model's own when given and unused, else `call_<step>_<n>` (`step` read at each
   * call: a turn whose calls run mid-generation moves on a step per call); unique in the run.
   */
  callIds(step: () => number): (preferred?: string) => string {
    let n = 0;
    return (preferred) => {
      let id = preferred && !this.#usedIds.has(preferred) ? preferred : `call_${step()}_${++n}`;
      while (this.#usedIds.has(id)) id = `call_${step()}_${++n}`;
      this.#usedIds.add(id);
      return id;
    };
  }

  callsOf(step: number): ToolCallRecord[] {
    return this.calls.filter((c) => c.step === step);
  }

  /**
   * Commit one model turn and mirror it here. Calls that can run at once are recorded as `executing`: that committed
   * insert is their claim (no other process can hold them), and they are returned for the caller to run.
   */
  async recordTurn(store: RunStore, turn: RecordedTurn): Promise<ToolCallRecord[]> {
    for (const call of turn.calls) if (call.state === "approved") call.state = "executing";
    const records = await store.recordTurn({
      runId: this.id,
      conversationId: this.run.conversationId,
      ...turn,
    });
    this.run.stepCount = turn.step;
    this.steps.push(turn.step);
    this.calls.push(...records);
    this.messages.push(turn.message);
    if (turn.close) {
      this.messages.push(...turn.close.messages);
      Object.assign(this.run, turn.close.run);
    }
    return records.filter((r) => r.state === "executing");
  }

  /** Mirror a committed patch of the run. */
  applyPatch(patch: RunPatch): void {
    Object.assign(this.run, patch);
  }

  /** Mirror a step's calls as the store has them (read on the way to a pause: decisions may have come meanwhile). */
  replaceCallsOf(step: number, stored: ToolCallRecord[]): void {
    this.calls = [...this.calls.filter((c) => c.step !== step), ...stored];
  }

  view(): RunView {
    return toRunView(this.run, this.steps, this.calls);
  }
}

/** Mirror a call's end in the session's record (the store's copy gets the same values in the same commit). */
export function applyFinish(call: ToolCallRecord, finish: ToolCallFinish): void {
  call.state = finish.state;
  call.outcome = finish.outcome;
  call.result = finish.result;
  call.durationMs = finish.durationMs;
  call.finishedAt = new Date().toISOString();
}
