import { afterEach, describe, expect, it, vi } from "vitest";
import { createTestTools } from "../../../test/agent/helpers.js";
import { createReplayModel, type ReplayTurn } from "../../models/replay-model.js";
import { InMemoryRunEventLog } from "../../store/in-memory-run-event-log.js";
import { InMemoryStore } from "../../store/in-memory-store.js";
import { ToolExecutor } from "../../tools/tool-executor.js";
import { runEventStream } from "./run-event-stream.js";
import { RunService } from "./run-service.js";

const services: RunService[] = [];
afterEach(async () => {
  while (services.length) await services.pop()?.close();
});

function service(turns: ReplayTurn[], chunkSize = 8) {
  const tools = createTestTools();
  const runs = new RunService({
    models: {
      names: () => ["replay"],
      defaultName: "replay",
      get: async () => createReplayModel(turns, { chunkSize }),
    },
    store: new InMemoryStore(),
    events: new InMemoryRunEventLog(),
    executor: new ToolExecutor(tools.registry, { redact: false }),
  });
  services.push(runs);
  return runs;
}

/** Reads the whole stream; `seen` holds what has arrived so far, for a test to wait on. */
async function readAll(
  response: Response,
  seen: { text: string } = { text: "" },
): Promise<{ text: string; error?: Error }> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text };
      text += decoder.decode(value, { stream: true });
      seen.text = text;
    }
  } catch (error) {
    return { text, error: error as Error };
  }
}

describe("runEventStream", () => {
  it("drops a client that does not read once maxQueuedBytes wait for it, instead of queueing the whole run", async () => {
    const runs = service([{ text: "word ".repeat(40_000) }], 50); // 4,000 deltas, ~500 kB of SSE
    const { runId } = await runs.start({ message: "talk" });
    const abort = new AbortController();
    const response = await runEventStream(runs, runId, 0, abort.signal, { maxQueuedBytes: 32 * 1024 });
    await runs.settled(runId);
    const { text, error } = await readAll(response);
    expect(error?.message).toMatch(/client too slow: reconnect with Last-Event-ID/);
    expect(text.length).toBeLessThan(200 * 1024);
    // What it got is a prefix of the log, in order, from seq 1: it can resume from its last id.
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    expect(ids).toEqual(ids.map((_, i) => i + 1));
  });

  it("sends keepalive comments while a paused run waits for a decision, and goes on after it", async () => {
    const runs = service([
      { calls: [{ name: "delete_file", arguments: { path: "/tmp/x" } }] },
      { text: "done" },
    ]);
    const { runId } = await runs.start({ message: "delete" });
    const abort = new AbortController();
    const response = await runEventStream(runs, runId, 0, abort.signal, { keepAliveMs: 20 });
    const seen = { text: "" };
    const reading = readAll(response, seen);
    await runs.settled(runId);
    // Paused: keepalives come while it waits.
    await vi.waitFor(() =>
      expect(seen.text.slice(seen.text.indexOf("event: run-paused"))).toContain(": keepalive"),
    );
    const [pending] = await runs.pending(runId);
    await runs.decide(runId, [{ callId: pending?.callId as string, decision: "approve" }], "test");
    const { text, error } = await reading;
    expect(error).toBeUndefined();
    const paused = text.indexOf("event: run-paused");
    const keepalive = text.indexOf(": keepalive", paused);
    expect(paused).toBeGreaterThan(0);
    expect(keepalive).toBeGreaterThan(paused);
    expect(text.indexOf("event: run-resumed")).toBeGreaterThan(keepalive);
    expect(text.trimEnd()).toMatch(/event: run-finished\ndata: .*"status":"finished"/);
  });
});
