import { useEffect } from "react";
import { api } from "../api/http.js";
import type { AgentMessage, Decision, RunView, SequencedEvent } from "../api/types.js";
import { applyEvents, emptyRunState, type RunState, reconcileWithView } from "../runs/run-state.js";
import { socket } from "./connection.js";
import { Store, useStore } from "./external-store.js";
import { pendingStore, refreshPending } from "./pending.js";

interface Entry {
  store: Store<RunState>;
  refs: number;
  unsubscribe: (() => void) | undefined;
  /** Every event delivered, in order (the Runs page exports them). */
  log: SequencedEvent[];
  queue: SequencedEvent[];
  flushing: boolean;
  lastFlush: number;
  reconcileTimer: ReturnType<typeof setTimeout> | undefined;
  releaseTimer: ReturnType<typeof setTimeout> | undefined;
  /** The run's part of its conversation, for runs without an event log. */
  messages: AgentMessage[];
}

const entries = new Map<string, Entry>();

function entryOf(runId: string): Entry {
  let entry = entries.get(runId);
  if (!entry) {
    entry = {
      store: new Store(emptyRunState(runId)),
      refs: 0,
      unsubscribe: undefined,
      log: [],
      queue: [],
      flushing: false,
      lastFlush: 0,
      reconcileTimer: undefined,
      releaseTimer: undefined,
      messages: [],
    };
    entries.set(runId, entry);
  }
  return entry;
}

/** Frames are 16 ms: events closer together than that are applied (and rendered) together. */
const FRAME_MS = 16;

function flush(entry: Entry): void {
  entry.flushing = false;
  entry.lastFlush = performance.now();
  const queued = entry.queue.splice(0);
  if (queued.length === 0) return;
  entry.store.set(applyEvents(entry.store.get(), queued));
}

/** Streamed pieces (text, reasoning, arguments): many per second, shown together once per frame. */
const DELTAS = new Set(["text-delta", "reasoning-delta", "call-args-delta"]);

function enqueue(entry: Entry, event: SequencedEvent): void {
  entry.log.push(event);
  entry.queue.push(event);
  const type = event.event.type;
  if (type === "run-paused" || type === "run-finished") scheduleReconcile(entry.store.get().runId, 50);
  // Every other event changes a state the page shows (a call starts running, waits, ends): shown as it comes, so
  // each state is drawn, however short.
  // (A backlog — the run's log up to now, on opening it — is drawn once per frame whatever it holds.)
  if (!DELTAS.has(type) && entry.store.get().loaded) {
    flush(entry);
    return;
  }
  if (entry.flushing) return;
  entry.flushing = true;
  // The first piece after a quiet spell is shown at once (the first token); a burst is shown once per frame.
  const wait = FRAME_MS - (performance.now() - entry.lastFlush);
  if (wait <= 0) queueMicrotask(() => flush(entry));
  else setTimeout(() => flush(entry), wait);
}

function subscribe(runId: string, entry: Entry): void {
  if (entry.unsubscribe) return;
  entry.unsubscribe = socket.subscribeRun(runId, entry.store.get().lastSeq, {
    onEvent: (event) => enqueue(entry, event),
    onReady: () => {
      flush(entry);
      entry.store.set((state) => (state.loaded ? state : { ...state, loaded: true }));
      scheduleReconcile(runId, 0);
    },
  });
}

/**
 * Keep a run live while something shows it: subscribed over the socket from the last event seen (so coming back to
 * it, or a reconnect, asks only for what is new). Returns the release.
 */
export function retainRun(runId: string, messages?: AgentMessage[]): () => void {
  const entry = entryOf(runId);
  if (messages) entry.messages = messages;
  entry.refs += 1;
  if (entry.releaseTimer) clearTimeout(entry.releaseTimer);
  entry.releaseTimer = undefined;
  subscribe(runId, entry);
  return () => {
    entry.refs -= 1;
    if (entry.refs > 0) return;
    // Released a moment later: a page switching views keeps its subscription.
    entry.releaseTimer = setTimeout(() => {
      if (entry.refs > 0) return;
      entry.unsubscribe?.();
      entry.unsubscribe = undefined;
    }, 5000);
  };
}

const noRun = new Store(emptyRunState(""));

/** A run's state while the component shows it (none for an undefined id). */
export function useRun(runId: string | undefined, messages?: AgentMessage[]): RunState {
  const entry = runId ? entryOf(runId) : undefined;
  // biome-ignore lint/correctness/useExhaustiveDependencies: messages only seed runs without a log; retaining again for each new array would resubscribe
  useEffect(() => (runId ? retainRun(runId, messages) : undefined), [runId]);
  if (entry && messages && messages.length > entry.messages.length) entry.messages = messages;
  return useStore(entry?.store ?? noRun);
}

export function runLog(runId: string): SequencedEvent[] {
  return entries.get(runId)?.log ?? [];
}

export function runState(runId: string): RunState | undefined {
  return entries.get(runId)?.store.get();
}

/** Read the stored run and complete the state with it (decisions made elsewhere, runs without a log). */
export function scheduleReconcile(runId: string, delayMs = 200): void {
  const entry = entries.get(runId);
  if (!entry) return;
  if (entry.reconcileTimer) clearTimeout(entry.reconcileTimer);
  entry.reconcileTimer = setTimeout(() => {
    entry.reconcileTimer = undefined;
    api<RunView>(`/api/runs/${encodeURIComponent(runId)}`)
      .then((view) => {
        flush(entry);
        entry.store.set((state) => reconcileWithView(state, view, entry.messages));
      })
      .catch(() => {});
  }, delayMs);
}

/** Decide calls of a run (any subset). Resolves with the server's answer; the run's events and the pending list follow. */
export async function decide(
  runId: string,
  decisions: Decision[],
): Promise<{ pending: unknown[]; ready: boolean }> {
  try {
    return await api(`/api/runs/${encodeURIComponent(runId)}/decisions`, { body: { decisions } });
  } finally {
    void refreshPending();
    scheduleReconcile(runId, 100);
  }
}

export function cancelRun(runId: string): Promise<unknown> {
  return api(`/api/runs/${encodeURIComponent(runId)}/cancel`, { method: "POST" }).finally(() => {
    void refreshPending();
    scheduleReconcile(runId, 100);
  });
}

// A call shown as awaiting whose approval left the pending list was decided somewhere else: read its run again.
pendingStore.subscribe(() => {
  const { calls, loaded } = pendingStore.get();
  if (!loaded) return;
  const pending = new Set(calls.map((call) => `${call.runId}/${call.callId}`));
  for (const [runId, entry] of entries) {
    if (entry.refs === 0) continue;
    const state = entry.store.get();
    const stale = Object.values(state.calls).some(
      (call) => call.phase === "awaiting-approval" && !pending.has(`${runId}/${call.callId}`),
    );
    if (stale) scheduleReconcile(runId, 300);
  }
});
