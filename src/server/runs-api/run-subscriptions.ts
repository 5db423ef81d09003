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
    const subscriber = new Subscriber(runId, after, listener, this.#options);
    // Listen before reading the log: an event committed in between is then in the log, delivered live, or both.
    let listeners = this.#listeners.get(runId);
    if (!listeners) this.#listeners.set(runId, (listeners = new Set()));
    const live: RunEventListener = (event) => subscriber.offer(event);
    listeners.add(live);
    const unsubscribe = () => {
      subscriber.stop();
      listeners.delete(live);
      if (listeners.size === 0 && this.#listeners.get(runId) === listeners) this.#listeners.delete(runId);
    };
    try {
      await subscriber.read();
    } catch (error) {
      unsubscribe();
      throw error;
    }
    subscriber.follow();
    return unsubscribe;
  }

  /** Forget every subscriber (the service is closing; their streams end with it). */
  clear(): void {
    this.#listeners.clear();
  }
}

/** One subscriber of one run: what it was given last, and the reads that bring it the rest. */
class Subscriber {
  #last: number;
  /** run-finished delivered: nothing more to read. */
  #ended = false;
  #stopped = false;
  #poll: ReturnType<typeof setInterval> | undefined;
  #unwatch: (() => void) | undefined;
  #reading: Promise<void> | undefined;
  #readAgain = false;

  constructor(
    readonly runId: string,
    after: number,
    readonly listener: RunEventListener,
    readonly options: RunSubscriptionsOptions,
  ) {
    this.#last = after;
  }

  /** A live event: the next one is delivered; one past it means others logged the ones between, so read them. */
  offer(event: SequencedEvent): void {
    if (event.seq === this.#last + 1) this.#deliver(event);
    else if (event.seq > this.#last + 1) this.#readSoon();
  }

  /** Read the log after the last delivered event (one read at a time; asked again meanwhile, once more after). */
  read(): Promise<void> {
    if (this.#reading) {
      this.#readAgain = true;
      return this.#reading;
    }
    this.#reading = this.options.events
      .list(this.runId, this.#last)
      .then((records) => {
        for (const r of records) this.#deliver({ seq: r.seq, event: r.event as unknown as AgentEvent });
      })
      .finally(() => {
        this.#reading = undefined;
        if (this.#readAgain && !this.#stopped && !this.#ended) {
          this.#readAgain = false;
          this.#readSoon();
        }
      });
    return this.#reading;
  }

  /**
   * After the backlog: another instance on the same database may log events of the run (it drives it, or a decision
   * was made there), so read when the log wakes us, and every pollMs while this process does not drive the run.
   */
  follow(): void {
    if (this.#ended || this.#stopped) return;
    const { events, drivenHere } = this.options;
    this.#unwatch = events.watch?.(this.runId, (seq) => {
      if (seq !== undefined && seq <= this.#last) return;
      // This process's own events arrive through `publish` at about the same time: give them a moment first.
      if (drivenHere(this.runId))
        setTimeout(() => (seq === undefined || seq > this.#last) && this.#readSoon(), 50);
      else this.#readSoon();
    });
    const pollMs = this.options.pollMs ?? 500;
    if (pollMs > 0) {
      this.#poll = setInterval(
        () => {
          if (!drivenHere(this.runId)) this.#readSoon();
        },
        this.#unwatch ? Math.max(pollMs, 2000) : pollMs,
      );
      this.#poll.unref?.();
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#stopReading();
  }

  #deliver(event: SequencedEvent): void {
    if (this.#stopped || event.seq !== this.#last + 1) return;
    this.#last = event.seq;
    if (event.event.type === "run-finished") {
      this.#ended = true;
      this.#stopReading();
    }
    this.listener(event);
  }

  /** A read nobody waits for; a failed one is retried by the next wake-up or poll. */
  #readSoon(): void {
    void this.read().catch(() => {});
  }

  #stopReading(): void {
    if (this.#poll) clearInterval(this.#poll);
    this.#unwatch?.();
  }
}
