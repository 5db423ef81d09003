import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { defaultDbPath } from "../../src/store/default-db-path.js";

/**
 * The suite runs on developers' machines: a CLI test that forgets --db must not touch the person's own database
 * (a test once migrated a developer's ~/.local/share/toolbridge/toolbridge.db to a newer schema). CLI children inherit
 * the test process's environment, so checking it here covers them.
 */
describe("tests never use the person's own data directory", () => {
  // macOS keeps it under ~/Library, which no variable moves; the suite's CI and our machines are Linux.
  it.skipIf(process.platform === "darwin")(
    "the default database of a test process is under the throwaway data directory",
    () => {
      const throwaway = process.env.TOOLBRIDGE_TEST_DATA_HOME;
      expect(throwaway).toBeTruthy();
      expect(defaultDbPath().startsWith(path.join(throwaway as string, "toolbridge"))).toBe(true);
      expect(defaultDbPath().startsWith(path.join(os.homedir(), ".local", "share"))).toBe(false);
    },
  );
});
