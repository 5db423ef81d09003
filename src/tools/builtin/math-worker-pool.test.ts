import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resultText } from "../normalize-tool-result.js";
import { ToolExecutor } from "../tool-executor.js";
import { ToolRegistry } from "../tool-registry.js";
import { createCalculatorTool } from "./calculator.js";
import { MathWorker } from "./math-worker.js";
import { MathWorkerPool } from "./math-worker-pool.js";

// Size 2 on purpose: the smallest pool the calculator uses, and the one where a flood hurts most.
const pool = new MathWorkerPool({ size: 2, timeoutMs: 2000, maxMemoryMb: 128, maxQueueWaitMs: 2000 });
beforeAll(() => pool.warmUp(), 90_000);
afterAll(() => pool.close());
const registry = new ToolRegistry();
registry.register(createCalculatorTool({ pool }));
// The executor's default concurrency (4), as the CLI and the MCP server use it.
const executor = new ToolExecutor(registry, { redact: false });
const HEAVY = "det(random([700, 700]))";

describe("MathWorkerPool", () => {
  it("one caller's flood of 12 heavy expressions does not delay another caller's 2+2 by more than 1 s", async () => {
    const flood = Array.from({ length: 12 }, () =>
      executor.call("calculator", { expression: HEAVY }, { userId: "session-flood" }),
    );
    // The flood has taken the workers and queued up.
    await vi.waitFor(() => expect(pool.queued).toBeGreaterThan(0), { timeout: 10_000, interval: 5 });
    const started = performance.now();
    const quick = await executor.call("calculator", { expression: "2+2" }, { userId: "session-other" });
    const elapsed = performance.now() - started;
    expect(quick.isError).toBeFalsy();
    expect(resultText(quick)).toBe("4");
    expect(elapsed).toBeLessThan(1000);
    console.log(`2+2 behind a 12-expression flood: ${elapsed.toFixed(0)} ms`);
    // Every flooded call still gets an answer a model can act on: stopped at the bound, or "busy, try again".
    for (const result of await Promise.all(flood)) {
      expect(result.isError).toBe(true);
      expect(resultText(result)).toMatch(/longer than 2 s|busy/);
    }
  }, 120_000);

  it("a worker restarting after one caller's overrun stays that caller's until it is ready: another's 2+2 does not wait for it", async () => {
    const workers = [new MathWorker({ timeoutMs: 300 }), new MathWorker({ timeoutMs: 300 })];
    const restarting = new MathWorkerPool({ workers, maxQueueWaitMs: 20_000 });
    try {
      await restarting.warmUp();
      const flood = Array.from({ length: 2 }, () =>
        restarting.evaluate(HEAVY, { caller: "flood" }).catch(() => undefined),
      );
      // The flood's first evaluation overran: its worker was killed and a fresh one is loading mathjs.
      await vi.waitFor(() => expect(workers.some((worker) => worker.workersStarted > 1)).toBe(true), {
        timeout: 20_000,
        interval: 5,
      });
      const started = performance.now();
      const quick = await restarting.evaluate("2+2", { caller: "other" });
      const elapsed = performance.now() - started;
      expect(quick).toMatchObject({ ok: true, text: "4" });
      // Answered by the worker the flood did not break, while the other one still starts: it used to be handed the
      // restarting one and wait for mathjs to load (seconds from source on a busy machine).
      expect(workers.some((worker) => !worker.ready)).toBe(true);
      expect(elapsed).toBeLessThan(1000);
      console.log(`2+2 while the flood's worker restarts: ${elapsed.toFixed(0)} ms`);
      restarting.close();
      await Promise.all(flood);
    } finally {
      restarting.close();
    }
  }, 120_000);

  it("answers 'busy, try again' at once when a caller's queue is full, and keeps serving others", async () => {
    const small = new MathWorkerPool({
      size: 1,
      timeoutMs: 1500,
      maxMemoryMb: 128,
      maxQueuedPerCaller: 1,
      maxQueueWaitMs: 60_000, // a worker restart takes seconds on a busy machine
    });
    try {
      await small.warmUp();
      const running = small.evaluate(HEAVY, { caller: "a" });
      const queued = small.evaluate(HEAVY, { caller: "a" });
      const started = performance.now();
      const refused = await small.evaluate("1+1", { caller: "a" });
      expect(performance.now() - started).toBeLessThan(200);
      expect(refused).toMatchObject({ ok: false, busy: true });
      expect(refused.ok ? "" : refused.message).toMatch(/busy.*Try again/);
      // Another caller is queued, not refused, and is served before the first caller's second expression.
      const other = small.evaluate("3*3", { caller: "b" });
      const order: string[] = [];
      await Promise.all([
        queued.then(() => order.push("a")),
        other.then((r) => {
          order.push("b");
          expect(r).toMatchObject({ ok: true, text: "9" });
        }),
        running,
      ]);
      expect(order).toEqual(["b", "a"]);
    } finally {
      small.close();
    }
  }, 60_000);
});
