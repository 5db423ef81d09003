import type { EventStore, JSONRPCMessage } from "@modelcontextprotocol/server";

interface StoredEvent {
  id: string;
  streamId: string;
  message: JSONRPCMessage;
}

/**
 * The events of one Streamable HTTP session, kept so that a client whose SSE stream broke can reconnect with
 * `Last-Event-ID` and get what it missed (resumability). Bounded: the oldest events are dropped first, so a long
 * session cannot grow memory without limit; a client that reconnects after that has lost those events.
 */
export class InMemoryEventStore implements EventStore {
  readonly #events: StoredEvent[] = [];
  readonly #maxEvents: number;
  #counter = 0;

  constructor(options: { maxEvents?: number } = {}) {
    this.#maxEvents = options.maxEvents ?? 1000;
  }

  async storeEvent(streamId: string, message: JSONRPCMessage): Promise<string> {
    const id = `${streamId}.${++this.#counter}`;
    this.#events.push({ id, streamId, message });
    if (this.#events.length > this.#maxEvents) this.#events.splice(0, this.#events.length - this.#maxEvents);
    return id;
  }

  async getStreamIdForEventId(eventId: string): Promise<string | undefined> {
    return this.#events.find((event) => event.id === eventId)?.streamId;
  }

  async replayEventsAfter(
    lastEventId: string,
    { send }: { send: (eventId: string, message: JSONRPCMessage) => Promise<void> },
  ): Promise<string> {
    const index = this.#events.findIndex((event) => event.id === lastEventId);
    if (index === -1)
      throw new Error(`Unknown or expired event id "${lastEventId}"; reconnect without Last-Event-ID.`);
    const streamId = this.#events[index]!.streamId;
    for (const event of this.#events.slice(index + 1)) {
      // Priming events carry no message; only real messages are replayed.
      if (event.streamId === streamId && "jsonrpc" in event.message) await send(event.id, event.message);
    }
    return streamId;
  }
}
