import type { RunService, SequencedEvent } from "./run-service.js";

export interface RunEventStreamOptions {
  /** A comment line this often keeps proxies and browsers from closing an idle stream. Default 15 s. */
  keepAliveMs?: number;
  /**
   * Bytes queued for a client that does not read. Past this the stream is dropped rather than grown: the client
   * reconnects with Last-Event-ID and gets the rest from the log. Default 8 MiB.
   */
  maxQueuedBytes?: number;
}

const encoder = new TextEncoder();

/** How long after a run's end its `run-finished` may still be on its way to the log (from another instance). */
const ENDED_EVENT_GRACE_MS = 5000;

/** One SSE frame: `id` is the event's seq (what the browser sends back as Last-Event-ID), `event` its type. */
export function sseFrame({ seq, event }: SequencedEvent): string {
  return `id: ${seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/**
 * The SSE response of `GET /api/runs/{id}/events`: the run's events after `after` from the log, then live ones, each
 * once and in order. It stays open across a pause (a decision from anyone resumes the run and the stream goes on) and
 * ends after `run-finished`. Throws (before any byte is sent) when the run does not exist.
 */
export async function runEventStream(
  service: RunService,
  runId: string,
  after: number,
  signal: AbortSignal,
  options: RunEventStreamOptions = {},
): Promise<Response> {
  const maxQueued = options.maxQueuedBytes ?? 8 * 1024 * 1024;
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  let unsubscribe: (() => void) | undefined;
  let keepAlive: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    open = false;
    unsubscribe?.();
    if (keepAlive) clearInterval(keepAlive);
    signal.removeEventListener("abort", stop);
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      start: (c) => {
        controller = c;
      },
      cancel: stop,
    },
    new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
  );
  const write = (text: string) => {
    if (!open) return;
    controller.enqueue(encoder.encode(text));
    if ((controller.desiredSize ?? 0) < -maxQueued) {
      stop();
      controller.error(new Error("client too slow: reconnect with Last-Event-ID"));
    }
  };
  const end = () => {
    if (!open) return;
    stop();
    controller.close();
  };
  let finished = false;
  // A retry hint for EventSource, then the backlog and live events.
  write("retry: 1000\n\n");
  unsubscribe = await service.subscribe(runId, after, (event) => {
    write(sseFrame(event));
    if (event.event.type === "run-finished") {
      finished = true;
      end();
    }
  });
  if (!open) {
    // Ended while the backlog was sent (a finished run): stop() ran before the unsubscribe function existed.
    unsubscribe();
    return new Response(stream, { headers: sseHeaders });
  }
  if (!finished && !service.isLive(runId)) {
    // A run that ended without its end in the log (an older run, a crash before the log caught up): nothing follows.
    // One that ended a moment ago elsewhere (another instance drives it) has its run-finished on the way: the record
    // commits before the event does, so wait for it a little before giving up on it.
    const run = await service.store.getRun(runId);
    if (run && (run.status === "finished" || run.status === "stopped")) {
      const wait = ENDED_EVENT_GRACE_MS - (Date.now() - Date.parse(run.updatedAt));
      if (wait > 0 && Number.isFinite(wait)) setTimeout(end, wait).unref?.();
      else end();
    }
  }
  if (open) {
    signal.addEventListener("abort", stop);
    keepAlive = setInterval(() => write(": keepalive\n\n"), options.keepAliveMs ?? 15_000);
    keepAlive.unref?.();
  }
  return new Response(stream, { headers: sseHeaders });
}

const sseHeaders = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  "x-accel-buffering": "no",
};
