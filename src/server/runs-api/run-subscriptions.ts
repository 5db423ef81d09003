import type { AgentEvent } from "../../agent/events.js";
import type { RunEventLog } from "../../store/run-event-log.js";

/** One event of a run with its sequence number in the run's log. */
export interface SequencedEvent {
  seq: number;
  event: AgentEvent;
}

export type RunEventListener = (event: SequencedEvent) => void;

export interface RunSubscriptionsOptions {
  events: RunEventLog;
  /** Whether this process drives the run now: its events then arrive through `publish`, and polling is not needed. */
  drivenHere: (runId: string) => boolean;
  /**
   * How often a subscriber of a run this process does not drive reads the log (another process on the same database
   * may drive it). Default 500 ms; 0 turns it off. With a log that wakes its readers (PostgreSQL's NOTIFY), at most
   * every 2 s: the notification brings events sooner, the poll is for one that was lost.
   */
  pollMs?: number;
}

/**
 * The fan-out of a run's events to its subscribers (SSE streams, WebSocket clients): each subscriber gets every event
 * after the one it names, in order and each once, whoever logged it.
 *
 * Events reach a subscriber three ways, whichever comes first: `publish` from this process's driver as each commits;
 * from the log when it wakes readers (another instance committed events of the run); from the log every pollMs while
 * this process does not drive the run. They are delivered strictly by seq: an event whose seq is not the next one
 * (another instance logged the ones between) makes the subscriber read the log first.
 */
export class RunSubscriptions {
  readonly #options: RunSubscriptionsOptions;
  readonly #listeners = new Map<string, Set<RunEventListener>>();

  constructor(options: RunSubscriptionsOptions) {
    this.#options = options;
  }

  /** An event of a run driven here, committed to the log as `seq`: hand it to the run's subscribers. */
  publish(runId: string, event: SequencedEvent): void {
    const listeners = this.#listeners.get(runId);
    if (listeners) for (const listener of [...listeners]) listener(event);
  }

  /** How many subscribers a run has (what a test or a shutdown looks at). */
  count(runId: string): number {
    return this.#listeners.get(runId)?.size ?? 0;
  }

  /**
   * Deliver the run's events with seq > `after` to `listener`: first those already in the log, then live ones.
   * Resolves to an unsubscribe function once the backlog was delivered. The caller checks that the run exists.
   */
  async subscribe(runId: string, after: number, listener: RunEventListener): Promise<() => void> {
    const { events } = this.#options;
    let last = after;
    let ended = false; // run-finished delivered: nothing more to read
    let stopped = false;
    let poll: ReturnType<typeof setInterval> | undefined;
    let unwatch: (() => void) | undefined;
    let reading: Promise<void> | undefined;
    let readAgain = false;
    const stopReading = () => {
      if (poll) clearInterval(poll);
      unwatch?.();
    };
    const deliver = (event: SequencedEvent) => {
      if (stopped || event.seq !== last + 1) return;
      last = event.seq;
      if (event.event.type === "run-finished") {
        ended = true;
        stopReading();
      }
      listener(event);
    };
    /** Read the log after the last delivered event (one read at a time; asked again meanwhile, once more after). */
    const read = (): Promise<void> => {
      if (reading) {
        readAgain = true;
        return reading;
      }
      reading = events
        .list(runId, last)
        .then((records) => {
          for (const r of records) deliver({ seq: r.seq, event: r.event as unknown as AgentEvent });
        })
        .finally(() => {
          reading = undefined;
          if (readAgain && !stopped && !ended) {
            readAgain = false;
            void read().catch(() => {});
          }
        });
      return reading;
    };
    // Listen before reading the log: an event committed in between is then in the log, delivered live, or both.
    const live: RunEventListener = (event) => {
      if (event.seq === last + 1) deliver(event);
      else if (event.seq > last + 1) void read().catch(() => {}); // the ones between were logged elsewhere
    };
    let listeners = this.#listeners.get(runId);
    if (!listeners) this.#listeners.set(runId, (listeners = new Set()));
    listeners.add(live);
    const unsubscribe = () => {
      stopped = true;
      stopReading();
      listeners.delete(live);
      if (listeners.size === 0 && this.#listeners.get(runId) === listeners) this.#listeners.delete(runId);
    };
    try {
      await read();
    } catch (error) {
      unsubscribe();
      throw error;
    }
    if (ended) return unsubscribe;
    const drivenHere = () => this.#options.drivenHere(runId);
    // Another instance on the same database may log events of the run (it drives it, or a decision was made there).
    unwatch = events.watch?.(runId, (seq) => {
      if (seq !== undefined && seq <= last) return;
      // This process's own events arrive through `publish` at about the same time: give them a moment first.
      if (drivenHere())
        setTimeout(() => (seq === undefined || seq > last) && void read().catch(() => {}), 50);
      else void read().catch(() => {});
    });
    const pollMs = this.#options.pollMs ?? 500;
    if (pollMs > 0) {
      poll = setInterval(
        () => {
          if (!drivenHere()) void read().catch(() => {});
        },
        unwatch ? Math.max(pollMs, 2000) : pollMs,
      );
      poll.unref?.();
    }
    return unsubscribe;
  }

  /** Forget every subscriber (the service is closing; their streams end with it). */
  clear(): void {
    this.#listeners.clear();
  }
}
