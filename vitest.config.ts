import { defineConfig } from "vitest/config";

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
  },
});
