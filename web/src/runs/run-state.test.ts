import { describe, expect, it } from "vitest";
import type { RunEvent, RunView } from "../api/types.js";
import {
  applyEvent,
  applyEvents,
  describeStopReason,
  emptyRunState,
  type RunState,
  reconcileWithView,
} from "./run-state.js";

const RUN = "run_1";
let at = 1_000;

function play(
  events: Array<Omit<RunEvent, "runId" | "at"> & { at?: number }>,
  state = emptyRunState(RUN),
): RunState {
  let next = state;
  for (const event of events) {
    at += 10;
    next = applyEvent(next, next.lastSeq + 1, { runId: RUN, at: event.at ?? at, ...event } as RunEvent);
  }
  return next;
}

describe("run state from the event log", () => {
  it("follows a call through every state, one event each, and streams the answer", () => {
    const phases: string[] = [];
    let state = play([
      { type: "run-started", conversationId: "conv_1", model: "demo" },
      { type: "step-started", step: 1 },
      { type: "call-started", step: 1, callId: "c1", name: "calculator" },
    ]);
    phases.push(state.calls.c1?.phase ?? "");
    state = play([{ type: "call-args-delta", step: 1, callId: "c1", text: '{"expression":' }], state);
    state = play([{ type: "call-args-delta", step: 1, callId: "c1", text: '"15% of 47.50"}' }], state);
    expect(state.calls.c1?.argsText).toBe('{"expression":"15% of 47.50"}');
    state = play(
      [
        {
          type: "call-finished",
          step: 1,
          callId: "c1",
          name: "calculator",
          arguments: { expression: "15% of 47.50" },
        },
      ],
      state,
    );
    phases.push(state.calls.c1?.phase ?? "");
    state = play([{ type: "tool-started", step: 1, callId: "c1", name: "calculator", at: 5_000 }], state);
    phases.push(state.calls.c1?.phase ?? "");
    expect(state.calls.c1?.startedAt).toBe(5_000);
    state = play(
      [
        {
          type: "tool-result",
          step: 1,
          callId: "c1",
          name: "calculator",
          status: "ok",
          result: { content: [{ type: "text", text: "7.125" }] },
          durationMs: 3,
        },
        {
          type: "step-finished",
          step: 1,
          finishReason: "tool-calls",
          toolCalls: 1,
          usage: { inputTokens: 40, outputTokens: 12 },
        },
        { type: "step-started", step: 2 },
        { type: "text-delta", step: 2, text: "15% of 47.50 is " },
        { type: "text-delta", step: 2, text: "7.125." },
        {
          type: "run-finished",
          status: "finished",
          stopReason: "final-answer",
          answer: "15% of 47.50 is 7.125.",
        },
      ],
      state,
    );
    phases.push(state.calls.c1?.phase ?? "");
    expect(phases).toEqual(["streaming", "checked", "running", "done"]);
    expect(state.calls.c1).toMatchObject({ durationMs: 3, arguments: { expression: "15% of 47.50" } });
    expect(state.items.map((item) => item.kind)).toEqual(["calls", "text"]);
    expect(state.items[1]).toMatchObject({ text: "15% of 47.50 is 7.125." });
    expect(state.steps[0]).toMatchObject({ inputTokens: 40, outputTokens: 12, finishReason: "tool-calls" });
    expect(state).toMatchObject({ status: "finished", model: "demo", conversationId: "conv_1" });
  });

  it("folds consecutive calls into one group, and starts a new one after text", () => {
    const state = play([
      { type: "call-started", step: 1, callId: "a", name: "add" },
      { type: "call-started", step: 1, callId: "b", name: "add" },
      { type: "text-delta", step: 1, text: "and then" },
      { type: "call-started", step: 1, callId: "c", name: "add" },
    ]);
    expect(state.items.map((item) => (item.kind === "calls" ? item.callIds : item.kind))).toEqual([
      ["a", "b"],
      "text",
      ["c"],
    ]);
  });

  it("approvals: awaiting → approved with edited arguments (the original kept) → running; a denial keeps its reason", () => {
    let state = play([
      { type: "call-finished", step: 1, callId: "w", name: "write_file", arguments: { path: "a.txt" } },
      { type: "call-finished", step: 1, callId: "d", name: "delete_file", arguments: { path: "b.txt" } },
      {
        type: "approval-requested",
        step: 1,
        calls: [
          { callId: "w", name: "write_file", arguments: { path: "a.txt" } },
          { callId: "d", name: "delete_file", arguments: { path: "b.txt" } },
        ],
      },
      { type: "run-paused", pending: [] },
    ]);
    expect([state.calls.w?.phase, state.calls.d?.phase, state.status]).toEqual([
      "awaiting-approval",
      "awaiting-approval",
      "paused",
    ]);
    state = play(
      [
        {
          type: "approval-decided",
          callId: "w",
          decision: "approved",
          by: "api",
          arguments: { path: "c.txt" },
        },
        { type: "approval-decided", callId: "d", decision: "denied", by: "api", reason: "keep it" },
      ],
      state,
    );
    expect(state.calls.w).toMatchObject({
      phase: "approved",
      arguments: { path: "c.txt" },
      decision: { decision: "approved", by: "api", originalArguments: { path: "a.txt" } },
    });
    expect(state.calls.d).toMatchObject({ phase: "denied", decision: { reason: "keep it" } });
  });

  it("a call nobody decided before its run was cancelled is expired, never runnable", () => {
    let state = play([
      { type: "approval-requested", step: 1, calls: [{ callId: "x", name: "delete_file", arguments: {} }] },
      { type: "approval-requested", step: 1, calls: [{ callId: "y", name: "delete_file", arguments: {} }] },
      {
        type: "approval-decided",
        callId: "x",
        decision: "denied",
        by: "api",
        reason: "the run was cancelled",
      },
    ]);
    expect(state.calls.x?.phase).toBe("expired");
    state = play([{ type: "run-finished", status: "stopped", stopReason: "aborted", answer: null }], state);
    expect(state.calls.y?.phase).toBe("expired");
  });

  it("tells errors, interruptions and invalid calls apart from results; errors stay where they happened", () => {
    const state = play([
      { type: "call-started", step: 1, callId: "e", name: "fetch" },
      {
        type: "tool-result",
        step: 1,
        callId: "e",
        name: "fetch",
        status: "tool-error",
        result: { isError: true, content: [] },
        durationMs: 9,
      },
      { type: "call-invalid", step: 1, callId: "i", name: "nope", message: "Unknown tool nope." },
      {
        type: "tool-result",
        step: 1,
        callId: "r",
        name: "slow",
        status: "interrupted",
        result: { isError: true, content: [] },
        durationMs: null,
      },
      { type: "error", step: 2, message: "The model failed: boom" },
      { type: "run-finished", status: "stopped", stopReason: "model-error", answer: null },
    ]);
    expect([state.calls.e?.phase, state.calls.i?.phase, state.calls.r?.phase]).toEqual([
      "error",
      "invalid",
      "interrupted",
    ]);
    expect(state.calls.i?.message).toBe("Unknown tool nope.");
    expect(state.items.at(-1)).toMatchObject({ kind: "error", step: 2, message: "The model failed: boom" });
  });

  it("shows events it does not know as notices, a run of the same kind replacing the previous one", () => {
    const state = play([
      { type: "model-loading", progress: 0.1 },
      { type: "model-loading", progress: 0.6 },
      { type: "model-loaded" },
    ]);
    expect(
      state.items.map((item) => (item.kind === "notice" ? [item.eventType, item.event.progress] : item.kind)),
    ).toEqual([
      ["model-loading", 0.6],
      ["model-loaded", undefined],
    ]);
  });

  it("applies a batch as one change and never alters a state it handed out", () => {
    const event = (seq: number, callId: string): { seq: number; event: RunEvent } => ({
      seq,
      event: { runId: RUN, at: seq, type: "call-started", step: 1, callId, name: "echo" },
    });
    const first = applyEvents(emptyRunState(RUN), [event(1, "a"), event(2, "b")]);
    const snapshot = JSON.stringify(first);
    const second = applyEvents(first, [
      event(3, "c"),
      { seq: 4, event: { runId: RUN, at: 4, type: "text-delta", step: 1, text: "x" } },
    ]);
    expect(JSON.stringify(first)).toBe(snapshot);
    expect(Object.keys(second.calls)).toEqual(["a", "b", "c"]);
    expect(second.items.map((item) => item.kind)).toEqual(["calls", "text"]);
    expect(second.calls.a).toBe(first.calls.a);
  });

  it("ignores an event it already has (a resubscription from an older seq)", () => {
    const state = play([{ type: "text-delta", step: 1, text: "hi" }]);
    expect(applyEvent(state, 1, { runId: RUN, at: 1, type: "text-delta", step: 1, text: "hi" })).toBe(state);
  });
});

describe("run state completed from the stored run", () => {
  const view = (overrides: Partial<RunView>): RunView => ({
    runId: RUN,
    status: "paused",
    stopReason: "awaiting-approval",
    answer: null,
    steps: [],
    pending: [],
    ...overrides,
  });

  it("a view read while the run was on its way to the pause (calls pending, run still running) leaves them awaiting a decision", () => {
    const pendingCall = (id: string) => ({
      id,
      name: "write_note",
      arguments: { file: `${id}.txt` },
      result: null,
      approval: { policy: "ask" as const, decision: "pending" as const, by: null, at: null, reason: null },
    });
    // Read before any event reached the page, and after: either way the calls wait, and the pause that follows keeps it.
    for (const before of [
      emptyRunState(RUN),
      play([
        {
          type: "approval-requested",
          step: 1,
          calls: [{ callId: "a", name: "write_note", arguments: { file: "a.txt" } }],
        },
      ]),
    ]) {
      let state = reconcileWithView(
        before,
        view({ status: "running", stopReason: null, steps: [{ calls: [pendingCall("a")] }] }),
      );
      expect(state.calls.a?.phase).toBe("awaiting-approval");
      state = play([{ type: "run-paused", pending: [] }], state);
      expect(state.calls.a?.phase).toBe("awaiting-approval");
    }
    // Pending in a run that ended: nobody will decide it any more.
    const ended = reconcileWithView(
      emptyRunState(RUN),
      view({ status: "stopped", stopReason: "aborted", steps: [{ calls: [pendingCall("a")] }] }),
    );
    expect(ended.calls.a?.phase).toBe("expired");
  });

  it("a view older than the events applied moves no call back and does not undo the run's end", () => {
    let state = play([
      { type: "step-started", step: 1 },
      { type: "call-started", step: 1, callId: "w", name: "wait_a_while" },
      { type: "call-finished", step: 1, callId: "w", name: "wait_a_while", arguments: { seconds: 60 } },
      { type: "tool-started", step: 1, callId: "w", name: "wait_a_while" },
    ]);
    expect(state.calls.w?.phase).toBe("running");
    // Read as the tool started: executing, no result yet — "checked" as far as the view says.
    const executing = view({
      status: "running",
      stopReason: null,
      steps: [
        {
          calls: [
            { id: "w", name: "wait_a_while", arguments: { seconds: 60 }, result: null, approval: null },
          ],
        },
      ],
    });
    state = reconcileWithView(state, executing);
    expect(state.calls.w?.phase).toBe("running");
    state = play([{ type: "run-finished", status: "stopped", stopReason: "aborted", answer: null }], state);
    state = reconcileWithView(state, executing);
    expect(state).toMatchObject({ status: "stopped", stopReason: "aborted" });
    expect(state.calls.w?.phase).toBe("interrupted");
  });

  it("learns a decision made elsewhere (the CLI's runs approve) for a call the log left awaiting", () => {
    const state = play([
      {
        type: "approval-requested",
        step: 1,
        calls: [{ callId: "x", name: "delete_file", arguments: { path: "a" } }],
      },
    ]);
    const next = reconcileWithView(
      state,
      view({
        steps: [
          {
            calls: [
              {
                id: "x",
                name: "delete_file",
                arguments: { path: "a" },
                result: null,
                approval: {
                  policy: "ask",
                  decision: "approved",
                  by: "root",
                  at: "2026-01-01T00:00:00Z",
                  reason: null,
                },
              },
            ],
          },
        ],
      }),
    );
    expect(next.calls.x).toMatchObject({ phase: "approved", decision: { by: "root", decision: "approved" } });
  });

  it("rebuilds a run that has no event log (started by toolbridge run) from its calls and messages", () => {
    const next = reconcileWithView(
      emptyRunState(RUN),
      view({
        status: "finished",
        stopReason: "final-answer",
        answer: "It is 42.",
        steps: [
          {
            calls: [
              {
                id: "c",
                name: "calculator",
                arguments: { expression: "6*7" },
                result: { content: [{ type: "text", text: "42" }] },
                approval: null,
              },
            ],
          },
        ],
      }),
      [
        { role: "user", content: "6*7?" },
        {
          role: "assistant",
          content: "Let me compute.",
          toolCalls: [{ id: "c", name: "calculator", arguments: {} }],
        },
        { role: "tool", callId: "c", name: "calculator", result: { content: [] } },
        { role: "assistant", content: "It is 42." },
      ],
    );
    expect(next.items.map((item) => item.kind)).toEqual(["text", "calls", "text"]);
    expect(next.calls.c?.phase).toBe("done");
    expect(next.items.at(-1)).toMatchObject({ text: "It is 42." });
  });

  it("keeps what the events already settled", () => {
    const state = play([
      {
        type: "tool-result",
        step: 1,
        callId: "c",
        name: "add",
        status: "ok",
        result: { content: [] },
        durationMs: 4,
      },
    ]);
    const next = reconcileWithView(
      state,
      view({
        status: "finished",
        steps: [{ calls: [{ id: "c", name: "add", arguments: {}, result: null, approval: null }] }],
      }),
    );
    expect(next.calls.c).toMatchObject({ phase: "done", durationMs: 4 });
  });
});

describe("stop reasons in words", () => {
  it("says what ended a run, with its numbers", () => {
    expect(describeStopReason("max-steps", { steps: 10 })).toBe(
      "stopped after 10 steps (the run's step limit)",
    );
    expect(describeStopReason("final-answer")).toBeUndefined();
    expect(describeStopReason("aborted")).toBe("stopped: cancelled");
    expect(describeStopReason("something-new")).toBe("stopped (something-new)");
  });
});
