/**
 * Lists the ten slowest test files at the end of a run, by wall time and by CPU time (see record-cpu-time.ts), and the
 * totals. With TOOLBRIDGE_TIMINGS_FILE set it also writes every file's figures there as JSON, to compare two runs.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import type { Reporter, TestModule } from "vitest/node";

interface FileTiming {
  file: string;
  wallSeconds: number;
  cpuSeconds: number | undefined;
}

const SHOWN = 10;

function timingOf(module: TestModule, root: string): FileTiming {
  const d = module.diagnostic();
  const wallMs =
    d.environmentSetupDuration + d.prepareDuration + d.setupDuration + d.collectDuration + d.duration;
  return {
    file: path.relative(root, module.moduleId),
    wallSeconds: wallMs / 1000,
    cpuSeconds: (module.meta() as { cpuSeconds?: number }).cpuSeconds,
  };
}

const seconds = (value: number | undefined) => (value === undefined ? "    -" : value.toFixed(1).padStart(6));

export default class SlowestFilesReporter implements Reporter {
  private root = process.cwd();

  onInit(vitest: { config: { root: string } }): void {
    this.root = vitest.config.root;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const timings = modules.map((module) => timingOf(module, this.root));
    if (timings.length === 0) return;
    const cpuTotal = timings.reduce((sum, t) => sum + (t.cpuSeconds ?? 0), 0);
    const wallTotal = timings.reduce((sum, t) => sum + t.wallSeconds, 0);
    const lines = [
      "",
      ` Slowest ${Math.min(SHOWN, timings.length)} test files (wall s, CPU s — CPU counts the file's worker and the processes it started)`,
    ];
    for (const t of [...timings].sort((a, b) => b.wallSeconds - a.wallSeconds).slice(0, SHOWN))
      lines.push(`  ${seconds(t.wallSeconds)} ${seconds(t.cpuSeconds)}  ${t.file}`);
    lines.push(` By CPU time`);
    for (const t of [...timings].sort((a, b) => (b.cpuSeconds ?? 0) - (a.cpuSeconds ?? 0)).slice(0, SHOWN))
      lines.push(`  ${seconds(t.wallSeconds)} ${seconds(t.cpuSeconds)}  ${t.file}`);
    lines.push(
      ` ${timings.length} files: ${wallTotal.toFixed(0)} s of file wall time, ${cpuTotal.toFixed(0)} s of CPU time`,
      "",
    );
    process.stdout.write(`${lines.join("\n")}\n`);
    const out = process.env.TOOLBRIDGE_TIMINGS_FILE;
    if (out) writeFileSync(out, `${JSON.stringify(timings, null, 2)}\n`);
  }
}
