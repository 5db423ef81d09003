/**
 * A setup file: records the CPU seconds each test file cost — its worker process and every child it started and
 * waited for (a spawned CLI, a model server) — in the file's meta, for the slowest-files reporter. On a shared
 * machine wall time says how loaded the machine was; CPU time says what the file itself costs.
 */
import { readFileSync } from "node:fs";
import { afterAll } from "vitest";

/** Linux's clock ticks per second (`getconf CLK_TCK`), 100 on every kernel Node supports. */
const TICKS_PER_SECOND = 100;

function cpuSecondsSoFar(): number {
  try {
    // Fields 14-17 after the command name: utime, stime, cutime, cstime (children reaped so far).
    const stat = readFileSync("/proc/self/stat", "utf8");
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
    return ticks / TICKS_PER_SECOND;
  } catch {
    const { user, system } = process.cpuUsage(); // not Linux: this process only
    return (user + system) / 1e6;
  }
}

// A worker that runs several files counts each from where the last one ended.
const state = globalThis as { __toolbridgeCpuAtLastFile?: number };

// biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's first parameter as fixtures, by pattern; the file is the second.
afterAll(({}, file) => {
  const now = cpuSecondsSoFar();
  (file.meta as { cpuSeconds?: number }).cpuSeconds = now - (state.__toolbridgeCpuAtLastFile ?? 0);
  state.__toolbridgeCpuAtLastFile = now;
});
