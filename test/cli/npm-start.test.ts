/**
 * `npm start` builds only what changed: an unchanged checkout goes straight to the chat; a changed source file of the
 * package or of the web UI rebuilds that one (scripts/build-if-changed.mjs, also the test run's global setup).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { buildIfChanged } from "../../scripts/build-if-changed.mjs";
import { REPO_ROOT } from "../helpers/run-cli.js";

const root = mkdtempSync(path.join(tmpdir(), "tb-npm-start-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Each write is later than the one before (a clock of its own: file times have coarse steps on some disks). */
let clock = Date.now() - 3_600_000;
function write(file: string): void {
  const full = path.join(root, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, "");
  clock += 10_000;
  utimesSync(full, new Date(clock), new Date(clock));
}

/** Builds that write their outputs now, as tsc and Vite do, and count themselves. */
const runs: string[] = [];
const builds = {
  package: () => {
    runs.push("package");
    write("dist/cli/main.js");
  },
  web: () => {
    runs.push("web");
    write("dist/web/index.html");
  },
};

describe("npm start", () => {
  it("runs the build only when a source is newer than its output", () => {
    write("src/cli/main.ts");
    write("web/src/main.tsx");
    expect(buildIfChanged(root, builds)).toEqual(["web", "package"]); // nothing built yet
    expect(buildIfChanged(root, builds)).toEqual([]); // unchanged: straight to the chat
    write("src/agent/loop.ts");
    expect(buildIfChanged(root, builds)).toEqual(["package"]);
    write("web/src/styles.css");
    expect(buildIfChanged(root, builds)).toEqual(["web"]);
    expect(runs).toEqual(["web", "package", "package", "web"]);
  });

  it("is what package.json's start script runs before the chat", () => {
    const scripts = (
      JSON.parse(readFileSync(path.join(REPO_ROOT, "package.json"), "utf8")) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    expect(scripts.start).toBe("node scripts/build-if-changed.mjs && node dist/cli/main.js chat");
  });
});
