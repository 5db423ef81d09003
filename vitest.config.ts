import { mkdtempSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { defineConfig } from "vitest/config";

// No test may read or write the person's own toolbridge database (~/.local/share/toolbridge, %LOCALAPPDATA%): a CLI
// run without --db in a test uses a throwaway data directory instead. Tests that need a specific one still pass
// their own XDG_DATA_HOME.
const testData = mkdtempSync(path.join(tmpdir(), "toolbridge-test-data-"));

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts", "web/src/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    setupFiles: ["test/timing/record-cpu-time.ts"],
    // The default report, then the ten slowest files by wall and by CPU time.
    reporters: ["default", "./test/timing/slowest-files-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: forks keep native modules (better-sqlite3) isolated per file.
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: one worker on a 2-core machine, where the suite then ran
    // file after file although many files mostly wait (a browser, a served model, child processes). Two at least.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    env: { XDG_DATA_HOME: testData, LOCALAPPDATA: testData, TOOLBRIDGE_TEST_DATA_HOME: testData },
  },
});
