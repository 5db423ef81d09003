import { describe, expect, it, vi } from "vitest";
import type { AgentEvent } from "../../agent/events.js";
import { InMemoryRunEventLog } from "../../store/in-memory-run-event-log.js";
import { RunSubscriptions, type SequencedEvent } from "./run-subscriptions.js";

const RUN = "run_sub";
const text = (n: number) =>
  ({ type: "text-delta", text: `t${n}`, runId: RUN, at: n }) as unknown as AgentEvent;
const finished = { type: "run-finished", status: "finished", runId: RUN, at: 0 } as unknown as AgentEvent;

/** A log with what PostgreSQL's NOTIFY gives: `wake` tells readers that another process committed events. */
class WakingLog extends InMemoryRunEventLog {
  readonly #watchers = new Set<(seq?: number) => void>();
  watch(_runId: string, wake: (seq?: number) => void): () => void {
    this.#watchers.add(wake);
    return () => this.#watchers.delete(wake);
  }
  wake(seq?: number): void {
    for (const wake of this.#watchers) wake(seq);
  }
  get watchers(): number {
    return this.#watchers.size;
  }
}

function collect() {
  const seen: SequencedEvent[] = [];
  return { seen, listener: (e: SequencedEvent) => seen.push(e), seqs: () => seen.map((e) => e.seq) };
}

describe("RunSubscriptions", () => {
  it("delivers the backlog after `after`, then live events, in order and each once (a repeat or a stale one is dropped)", async () => {
    const events = new InMemoryRunEventLog();
    const subscriptions = new RunSubscriptions({ events, drivenHere: () => true, pollMs: 0 });
    for (const n of [1, 2, 3]) await events.append(RUN, text(n));
    const { listener, seqs } = collect();
    const unsubscribe = await subscriptions.subscribe(RUN, 1, listener);
    expect(seqs()).toEqual([2, 3]);
    const seq = await events.append(RUN, text(4));
    subscriptions.publish(RUN, { seq, event: text(4) });
    subscriptions.publish(RUN, { seq, event: text(4) });
    subscriptions.publish(RUN, { seq: 2, event: text(2) });
    expect(seqs()).toEqual([2, 3, 4]);
    unsubscribe();
    const after = await events.append(RUN, text(5));
    subscriptions.publish(RUN, { seq: after, event: text(5) });
    expect(seqs()).toEqual([2, 3, 4]);
    expect(subscriptions.count(RUN)).toBe(0);
  });

  it("an event whose seq skips some (logged by another instance) makes the subscriber read the missing ones first", async () => {
    const events = new InMemoryRunEventLog();
    const subscriptions = new RunSubscriptions({ events, drivenHere: () => true, pollMs: 0 });
    const { listener, seqs } = collect();
    await subscriptions.subscribe(RUN, 0, listener);
    await events.append(RUN, text(1));
    await events.append(RUN, text(2));
    const third = await events.append(RUN, text(3));
    subscriptions.publish(RUN, { seq: third, event: text(3) });
    await vi.waitFor(() => expect(seqs()).toEqual([1, 2, 3]));
  });

  it("polls the log for a run this process does not drive, and stops at run-finished", async () => {
    const events = new InMemoryRunEventLog();
    const list = vi.spyOn(events, "list");
    const subscriptions = new RunSubscriptions({ events, drivenHere: () => false, pollMs: 10 });
    const { listener, seqs, seen } = collect();
    const unsubscribe = await subscriptions.subscribe(RUN, 0, listener);
    await events.append(RUN, text(1));
    await events.append(RUN, finished);
    await vi.waitFor(() => expect(seqs()).toEqual([1, 2]));
    expect(seen.at(-1)?.event.type).toBe("run-finished");
    const reads = list.mock.calls.length;
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(list.mock.calls.length).toBe(reads);
    unsubscribe();
  });

  it("does not poll a run driven here: its events come from `publish`", async () => {
    const events = new InMemoryRunEventLog();
    const list = vi.spyOn(events, "list");
    const subscriptions = new RunSubscriptions({ events, drivenHere: () => true, pollMs: 10 });
    const unsubscribe = await subscriptions.subscribe(RUN, 0, () => {});
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(list).toHaveBeenCalledTimes(1); // the backlog
    unsubscribe();
  });

  it("reads when the log wakes it (another instance committed events), and stops watching on unsubscribe", async () => {
    const events = new WakingLog();
    const subscriptions = new RunSubscriptions({ events, drivenHere: () => false, pollMs: 0 });
    const { listener, seqs } = collect();
    const unsubscribe = await subscriptions.subscribe(RUN, 0, listener);
    expect(events.watchers).toBe(1);
    const seq = await events.append(RUN, text(1));
    events.wake(seq);
    await vi.waitFor(() => expect(seqs()).toEqual([1]));
    unsubscribe();
    expect(events.watchers).toBe(0);
  });

  it("a subscriber that came after the end gets the backlog and watches nothing", async () => {
    const events = new WakingLog();
    const subscriptions = new RunSubscriptions({ events, drivenHere: () => false, pollMs: 10 });
    await events.append(RUN, text(1));
    await events.append(RUN, finished);
    const { listener, seqs } = collect();
    await subscriptions.subscribe(RUN, 0, listener);
    expect(seqs()).toEqual([1, 2]);
    expect(events.watchers).toBe(0);
  });
});
