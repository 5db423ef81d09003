/**
 * POST /api/runs answers before the store is opened or the model loaded (issue 29, item 7). `serve` opens both on
 * demand; here each sits behind a gate the test holds, over a real SQLite file and a real HTTP server, so what is
 * asserted is order, not time: the 202 comes back while both are held, the run's stream shows the model loading (with
 * its progress) and then loaded, and a model that cannot be loaded ends the run with its error.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { LanguageModel } from "../../../src/core/language-model.js";
import { ToolbridgeError } from "../../../src/core/toolbridge-error.js";
import { createReplayModel, type ReplayTurn } from "../../../src/models/replay-model.js";
import type { RunModels } from "../../../src/server/runs-api/run-models.js";
import { RunService } from "../../../src/server/runs-api/run-service.js";
import { startServer } from "../../../src/server/start-server.js";
import { SqliteConversationEraser } from "../../../src/store/sqlite-conversation-eraser.js";
import { SqliteRunEventLog } from "../../../src/store/sqlite-run-event-log.js";
import { SqliteStore } from "../../../src/store/sqlite-store.js";
import { ToolExecutor } from "../../../src/tools/tool-executor.js";
import { createTestTools } from "../../agent/helpers.js";
import { getJson, postJson, readSse, type SseEvent, tempDbFile } from "./helpers.js";

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.();
});

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** An object whose methods wait for `gate`, then open `target()` (once) and call it: a store opened on demand, held. */
function heldUntil<T extends object>(
  gate: Promise<void>,
  kind: { prototype: T },
  target: () => T,
): { object: T; opened: () => boolean } {
  let made: T | undefined;
  const object = new Proxy({} as T, {
    get(_empty, key) {
      // What the class does not have as a method (an optional part such as a store's `leases`) is absent.
      if (typeof Reflect.get(kind.prototype, key) !== "function") return undefined;
      return async (...args: unknown[]) => {
        await gate;
        made ??= target();
        const method = Reflect.get(made, key, made) as (...a: unknown[]) => unknown;
        return method.apply(made, args);
      };
    },
  });
  return { object, opened: () => made !== undefined };
}

/**
 * A model catalog with one model whose loads the test decides: `loads[i]` is the i-th load (calls to `get` while one
 * is under way join it, as ModelCatalog's do; a failed load is tried again by the next call).
 */
function heldModels(turns: ReplayTurn[]) {
  const loads: Array<{
    progress: Array<(p: number) => void>;
    done: ReturnType<typeof deferred<LanguageModel>>;
  }> = [];
  let current: (typeof loads)[number] | undefined;
  const waiters = new Set<() => void>();
  const models: RunModels = {
    names: () => ["slow-gguf"],
    defaultName: "slow-gguf",
    get(_name, options) {
      if (!current) {
        const load = { progress: [] as Array<(p: number) => void>, done: deferred<LanguageModel>() };
        current = load;
        load.done.promise.catch(() => {
          if (current === load) current = undefined;
        });
        loads.push(load);
        for (const wake of [...waiters]) wake();
      }
      if (options?.onLoadProgress) current.progress.push(options.onLoadProgress);
      return current.done.promise;
    },
  };
  const model = () => createReplayModel(turns, { id: "slow-gguf" });
  const nthLoad = async (n: number) => {
    while (loads.length <= n)
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      });
    const load = loads[n]!;
    const report = (p: number) => {
      for (const listener of load.progress) listener(p);
    };
    return { ...load, report };
  };
  return { models, loads, model, nthLoad };
}

async function open(models: RunModels) {
  const db = await tempDbFile();
  cleanups.push(db.remove);
  const storeGate = deferred();
  let store: SqliteStore | undefined;
  const openStore = () => (store ??= new SqliteStore(db.file));
  const held = heldUntil(storeGate.promise, SqliteStore, openStore);
  const events = heldUntil(storeGate.promise, SqliteRunEventLog, () => new SqliteRunEventLog(openStore().db));
  const eraser = heldUntil(
    storeGate.promise,
    SqliteConversationEraser,
    () => new SqliteConversationEraser(openStore().db),
  );
  const tools = createTestTools();
  const executor = new ToolExecutor(tools.registry, { redact: false });
  const service = new RunService({
    models,
    store: held.object,
    events: events.object,
    conversations: eraser.object,
    executor,
  });
  const server = await startServer({ registry: tools.registry, executor, port: 0, runs: { service } });
  cleanups.push(async () => {
    storeGate.resolve();
    await server.close();
    await service.close();
    await store?.close();
  });
  return { url: server.url, service, openStore: () => storeGate.resolve(), storeOpened: held.opened };
}

/** Follow a run's SSE stream in the background; `next(type)` waits for the next event of that type. */
function follow(url: string, runId: string) {
  const seen: SseEvent[] = [];
  const waiters = new Set<() => void>();
  const wakeAll = () => {
    for (const wake of [...waiters]) wake();
  };
  let over = false;
  const ended = readSse(`${url}/api/runs/${runId}/events`, (e) => {
    seen.push(e);
    wakeAll();
  });
  void ended.finally(() => {
    over = true;
    wakeAll();
  });
  const next = async (type: string, after = 0): Promise<SseEvent> => {
    for (;;) {
      const found = seen.find((e) => e.event === type && e.id > after);
      if (found) return found;
      if (over) throw new Error(`the stream ended without ${type}: ${seen.map((e) => e.event).join(", ")}`);
      await new Promise<void>((resolve) => {
        const wake = () => {
          waiters.delete(wake);
          resolve();
        };
        waiters.add(wake);
      });
    }
  };
  return { seen, next, ended };
}

describe("POST /api/runs before the store and the model are there", () => {
  it("answers 202 at once; the run's stream shows the model loading, its progress, then loaded, then the steps", async () => {
    const held = heldModels([{ text: "Loaded and answering." }, { text: "Second answer." }]);
    const s = await open(held.models);

    const started = await postJson(`${s.url}/api/runs`, { message: "hello" });
    // The answer came while the store was still closed and no model was asked for.
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      runId: expect.stringMatching(/^run_/),
      conversationId: expect.any(String),
    });
    expect(s.storeOpened()).toBe(false);
    expect(held.loads).toHaveLength(0);
    const { runId } = started.body;

    const run = follow(s.url, runId);
    s.openStore();
    const load = await held.nthLoad(0);
    const loading = await run.next("model-loading");
    expect(loading.data).toMatchObject({ type: "model-loading", model: "slow-gguf", runId });
    expect(loading.data).not.toHaveProperty("progress");
    // While it loads, the run exists and is running, with nothing done yet.
    expect((await getJson(`${s.url}/api/runs/${runId}`)).body).toMatchObject({
      runId,
      status: "running",
      error: null,
      steps: [],
    });

    load.report(0.42);
    expect((await run.next("model-loading", loading.id)).data).toMatchObject({ progress: 0.42 });
    load.done.resolve(held.model());
    const loaded = await run.next("model-loaded");
    expect(loaded.data).toMatchObject({ model: "slow-gguf", durationMs: expect.any(Number) });
    expect((await run.ended).ended).toBe("finished");
    expect(run.seen.map((e) => e.event)).toEqual([
      "run-started",
      "model-loading",
      "model-loading",
      "model-loaded",
      "step-started",
      "text-delta",
      "step-finished",
      "run-finished",
    ]);
    expect(run.seen.at(-1)?.data).toMatchObject({ status: "finished", answer: "Loaded and answering." });

    // Loaded once: the next run neither waits nor says it loads.
    const second = (
      await postJson(`${s.url}/api/runs`, { message: "again", conversationId: started.body.conversationId })
    ).body;
    const again = follow(s.url, second.runId);
    await again.ended;
    expect(again.seen.map((e) => e.event)).not.toContain("model-loading");
    expect(again.seen.at(-1)?.data).toMatchObject({ answer: "Second answer." });
    expect(held.loads).toHaveLength(1);
  });

  it("a model that cannot be loaded ends the run with its error, in the stream and in GET /api/runs/{id}; the next run tries again", async () => {
    const held = heldModels([{ text: "Fine this time." }]);
    const s = await open(held.models);
    s.openStore();
    const { runId } = (await postJson(`${s.url}/api/runs`, { message: "hello" })).body;
    const run = follow(s.url, runId);
    await run.next("model-loading");
    (await held.nthLoad(0)).done.reject(
      new ToolbridgeError("Cannot load /models/slow.gguf: Invalid GGUF magic. Is it a GGUF model file?"),
    );
    expect((await run.ended).ended).toBe("finished");
    expect(run.seen.map((e) => e.event)).toEqual(["run-started", "model-loading", "error", "run-finished"]);
    expect(run.seen[2]?.data.message).toMatch(
      /could not be loaded: Cannot load \/models\/slow\.gguf: Invalid GGUF magic/,
    );
    expect(run.seen[3]?.data).toMatchObject({ status: "stopped", stopReason: "model-error" });
    expect((await getJson(`${s.url}/api/runs/${runId}`)).body).toMatchObject({
      status: "stopped",
      stopReason: "model-error",
      error: expect.stringMatching(/could not be loaded: Cannot load \/models\/slow\.gguf/),
    });

    const retry = (await postJson(`${s.url}/api/runs`, { message: "again" })).body;
    const next = follow(s.url, retry.runId);
    (await held.nthLoad(1)).done.resolve(held.model());
    await next.ended;
    expect(next.seen.map((e) => e.event)).toContain("model-loaded");
    expect(next.seen.at(-1)?.data).toMatchObject({ status: "finished", answer: "Fine this time." });
  });

  it("cancelling a run while its model loads ends it at once (aborted); the load goes on for the next run", async () => {
    const held = heldModels([{ text: "Answer." }]);
    const s = await open(held.models);
    s.openStore();
    const { runId } = (await postJson(`${s.url}/api/runs`, { message: "hello" })).body;
    const run = follow(s.url, runId);
    await run.next("model-loading");
    const load = await held.nthLoad(0);
    expect((await postJson(`${s.url}/api/runs/${runId}/cancel`, {})).body).toEqual({
      runId,
      status: "stopped",
    });
    await run.ended;
    expect(run.seen.map((e) => e.event)).toEqual(["run-started", "model-loading", "run-finished"]);
    expect(run.seen.at(-1)?.data).toMatchObject({ stopReason: "aborted" });
    load.done.resolve(held.model());
    const next = (await postJson(`${s.url}/api/runs`, { message: "again" })).body;
    const second = follow(s.url, next.runId);
    await second.ended;
    expect(second.seen.at(-1)?.data).toMatchObject({ status: "finished", answer: "Answer." });
    expect(held.loads).toHaveLength(1);
  });
});
