import type { ListenClient, PostgresConnection } from "./postgres-connection.js";

type Handler = (payload: string) => void;

/**
 * One LISTEN connection for every channel the store's parts follow, re-established when it drops. What arrives is a
 * hint, never the truth: notifications are lost while the connection is down (and on a server crash or failover), so
 * after each reconnect every `onReconnect` handler is called to catch up from the tables, and whoever relies on a
 * channel also polls. A `pg` client whose server restarts emits an error and stays dead (scale.md §4): hence the loop.
 */
export class PostgresNotifications {
  readonly #connection: PostgresConnection;
  readonly #handlers = new Map<string, Set<Handler>>();
  readonly #reconnected = new Set<() => void>();
  #client: ListenClient | undefined;
  #closed = false;
  #retry: ReturnType<typeof setTimeout> | undefined;
  #wait = 100;
  /** Notifications may have been missed (the connection was down): the next connect tells onReconnect handlers. */
  #missed = false;
  #connecting: Promise<void> | undefined;
  /** LISTENs sent on the open connection and not answered yet. */
  readonly #listens = new Set<Promise<void>>();
  /** Times the connection was (re-)established; tests and logs read it. */
  connects = 0;

  constructor(connection: PostgresConnection) {
    this.#connection = connection;
  }

  /** Whether the LISTEN connection is up right now. */
  get listening(): boolean {
    return this.#client !== undefined;
  }

  /** Connect and LISTEN to the channels handled so far; resolves once listening (or once the first try failed). */
  start(): Promise<void> {
    this.#connecting ??= this.#connect().finally(() => {
      this.#connecting = undefined;
    });
    return this.#connecting;
  }

  /** Call `handler` with the payload of every notification on `channel`. Returns the function that stops it. */
  on(channel: string, handler: Handler): () => void {
    let handlers = this.#handlers.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.#handlers.set(channel, handlers);
      // A LISTEN that fails means the connection is going: ending it makes the loop reconnect and LISTEN again.
      const client = this.#client;
      const listen = client
        ?.query(`LISTEN ${quoteChannel(channel)}`)
        .then(
          () => {},
          () => client.end().catch(() => {}),
        )
        .finally(() => this.#listens.delete(listen as Promise<void>));
      if (listen) this.#listens.add(listen);
    }
    handlers.add(handler);
    return () => handlers.delete(handler);
  }

  /**
   * Resolves once every LISTEN asked for so far has been answered: a notification sent after that reaches the
   * handlers (one sent before may not; readers poll for that). For callers that must not miss the very next one.
   */
  async listened(): Promise<void> {
    // A connection still being made LISTENs to every channel handled so far before it counts as up.
    if (this.#connecting) await this.#connecting;
    await Promise.all([...this.#listens]);
  }

  /** Called after the connection came back: notifications sent meanwhile are lost, so read what may have changed. */
  onReconnect(handler: () => void): () => void {
    this.#reconnected.add(handler);
    return () => this.#reconnected.delete(handler);
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const client = this.#connection.newClient();
    let failed = false;
    const lost = () => {
      if (failed) return;
      failed = true;
      if (this.#client === client) this.#client = undefined;
      client.end().catch(() => {});
      this.#lost();
    };
    client.on("error", lost);
    client.on("end", lost);
    client.on("notification", (message) => {
      const handlers = this.#handlers.get(message.channel);
      if (!handlers) return;
      for (const handler of [...handlers]) {
        try {
          handler(message.payload ?? "");
        } catch {
          // A handler's fault stays its own.
        }
      }
    });
    try {
      await client.connect();
      for (const channel of this.#handlers.keys()) await client.query(`LISTEN ${quoteChannel(channel)}`);
    } catch {
      lost();
      return;
    }
    if (this.#closed || failed) {
      client.end().catch(() => {});
      return;
    }
    this.#client = client;
    this.#wait = 100;
    this.connects += 1;
    if (this.#missed) {
      this.#missed = false;
      for (const handler of [...this.#reconnected]) handler();
    }
  }

  #lost(): void {
    this.#missed = true;
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      void this.start();
    }, this.#wait);
    this.#retry.unref?.();
    this.#wait = Math.min(this.#wait * 2, 2000);
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    await this.#connecting?.catch(() => {});
    const client = this.#client;
    this.#client = undefined;
    await client?.end().catch(() => {});
  }
}

/** A channel name as an SQL identifier (LISTEN takes no parameters). Names are ours: lower case and underscores. */
function quoteChannel(channel: string): string {
  if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`bad channel name ${channel}`);
  return `"${channel}"`;
}
