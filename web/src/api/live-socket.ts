import { Store } from "../state/external-store.js";
import { ApiError } from "./http.js";
import type { PendingApproval, PendingCall, RunEvent, SequencedEvent } from "./types.js";

export type Push =
  | { type: "run-event"; runId: string; seq: number; event: RunEvent }
  | { type: "approval-requested"; runId: string; calls: PendingCall[] }
  | { type: "approvals/pending"; calls: PendingApproval[] }
  | { type: "tools/list_changed" };

/** `open`: live; `connecting`: first connection; `reconnecting`: lost, trying again; `signed-out`: needs a sign-in. */
export type SocketStatus = "connecting" | "open" | "reconnecting" | "signed-out";

interface RunSubscription {
  runId: string;
  /** The last event seq delivered: a resubscription asks for what came after it, so nothing is missed or doubled. */
  lastSeq: number;
  onEvent: (event: SequencedEvent) => void;
  /** The backlog up to now was delivered (sent again after every reconnect). */
  onReady: () => void;
}

interface Waiting {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

const BACKOFF_MS = [250, 500, 1000, 2000, 3000];

/**
 * The one WebSocket of the page (`/ws`): requests with ids, pushes (run events, pending approvals, tool list changes)
 * and run subscriptions. When the connection drops — `serve` restarting, a network blip — it reconnects by itself
 * with backoff and subscribes each run again from the last event seq it delivered. Authentication is the session
 * cookie the browser sends with the upgrade; the token is never held by script.
 */
export class LiveSocket {
  readonly status = new Store<SocketStatus>("connecting");
  readonly #url: string;
  #socket: WebSocket | undefined;
  #nextId = 1;
  readonly #waiting = new Map<number, Waiting>();
  /** Requests made while the socket is not open: sent once it is. */
  readonly #queued: Array<Record<string, unknown>> = [];
  readonly #runs = new Map<string, RunSubscription>();
  readonly #pushListeners = new Set<(push: Push) => void>();
  readonly #openListeners = new Set<(reconnected: boolean) => void>();
  #attempt = 0;
  #everOpen = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stopped = true;

  constructor(url: string) {
    this.#url = url;
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#connect();
  }

  stop(status: SocketStatus = "connecting"): void {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    const socket = this.#socket;
    this.#socket = undefined;
    socket?.close();
    this.#failWaiting(new Error("The connection was closed."));
    this.status.set(status);
  }

  /** Pushes from the server (every run event of subscribed runs too). */
  onPush(listener: (push: Push) => void): () => void {
    this.#pushListeners.add(listener);
    return () => this.#pushListeners.delete(listener);
  }

  /** Each time the socket opens; `reconnected` is true after a drop (stores refresh what they show). */
  onOpen(listener: (reconnected: boolean) => void): () => void {
    this.#openListeners.add(listener);
    return () => this.#openListeners.delete(listener);
  }

  /** Send a request and wait for its result; waits for the connection when it is not open. */
  request<T>(type: string, body: Record<string, unknown> = {}): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve: resolve as (value: unknown) => void, reject });
      this.#send({ id, type, ...body });
    });
  }

  /**
   * Follow a run's events from `after` on: the backlog first, then live ones, each once and in order, across
   * reconnects. Returns the unsubscribe.
   */
  subscribeRun(
    runId: string,
    after: number,
    handlers: { onEvent: (event: SequencedEvent) => void; onReady: () => void },
  ): () => void {
    const subscription: RunSubscription = { runId, lastSeq: after, ...handlers };
    this.#runs.set(runId, subscription);
    if (this.#socket?.readyState === WebSocket.OPEN) this.#subscribe(subscription);
    return () => {
      if (this.#runs.get(runId) !== subscription) return;
      this.#runs.delete(runId);
      if (this.#socket?.readyState === WebSocket.OPEN)
        this.#socket.send(JSON.stringify({ type: "runs/unsubscribe", runId }));
    };
  }

  #subscribe(subscription: RunSubscription): void {
    const id = this.#nextId++;
    this.#waiting.set(id, {
      resolve: () => {
        if (this.#runs.get(subscription.runId) === subscription) subscription.onReady();
      },
      reject: () => {},
    });
    this.#send({ id, type: "runs/subscribe", runId: subscription.runId, after: subscription.lastSeq });
  }

  #send(message: Record<string, unknown>): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
    else this.#queued.push(message);
  }

  #connect(): void {
    if (this.#stopped) return;
    const socket = new WebSocket(this.#url);
    this.#socket = socket;
    socket.addEventListener("open", () => {
      if (this.#socket !== socket) return;
      const reconnected = this.#everOpen;
      this.#everOpen = true;
      this.#attempt = 0;
      this.status.set("open");
      for (const subscription of this.#runs.values()) this.#subscribe(subscription);
      for (const message of this.#queued.splice(0)) socket.send(JSON.stringify(message));
      for (const listener of [...this.#openListeners]) listener(reconnected);
    });
    socket.addEventListener("message", (message) => {
      if (this.#socket !== socket || typeof message.data !== "string") return;
      let data: Record<string, unknown>;
      try {
        data = JSON.parse(message.data) as Record<string, unknown>;
      } catch {
        return;
      }
      this.#receive(data);
    });
    socket.addEventListener("close", (event) => {
      if (this.#socket !== socket) return;
      this.#socket = undefined;
      // Requests in flight are lost with the connection; the caller may retry (subscriptions are renewed).
      this.#failWaiting(new Error("The connection to the server was lost."));
      if (this.#stopped) return;
      if (event.code === 1008) {
        // Not signed in (or the session expired): reconnecting cannot help until a sign-in.
        this.#stopped = true;
        this.status.set("signed-out");
        return;
      }
      this.status.set(this.#everOpen ? "reconnecting" : "connecting");
      const delay = BACKOFF_MS[Math.min(this.#attempt, BACKOFF_MS.length - 1)] ?? 3000;
      this.#attempt += 1;
      this.#timer = setTimeout(() => this.#connect(), delay);
    });
  }

  #receive(data: Record<string, unknown>): void {
    const id = data.id;
    if (typeof id === "number" && (data.type === "result" || data.type === "error")) {
      const waiting = this.#waiting.get(id);
      if (!waiting) return;
      this.#waiting.delete(id);
      if (data.type === "result") waiting.resolve(data.result);
      else {
        // The same error HTTP would answer, its status beside it: a page handles both alike.
        const error = data.error as { message?: string; type?: string; code?: string } | undefined;
        waiting.reject(
          new ApiError(
            error?.message ?? "The server answered with an error.",
            typeof data.status === "number" ? data.status : 0,
            error?.type,
            error?.code,
          ),
        );
      }
      return;
    }
    if (data.type === "run-event") {
      const runId = data.runId as string;
      const seq = data.seq as number;
      const subscription = this.#runs.get(runId);
      if (subscription) {
        if (seq <= subscription.lastSeq) return;
        subscription.lastSeq = seq;
        subscription.onEvent({ seq, event: data.event as RunEvent });
      }
    }
    for (const listener of [...this.#pushListeners]) listener(data as unknown as Push);
  }

  #failWaiting(error: Error): void {
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
    this.#queued.length = 0;
  }
}

/** `ws://host/ws` (or wss://) of the page's own server. */
export function socketUrl(location: Location = window.location): string {
  return `${location.protocol === "https:" ? "wss:" : "ws:"}//${location.host}/ws`;
}
