/**
 * The README's quick start holds as written: its two commands are the ones CI runs (`npm ci && npm test` in .ci/run)
 * and the one `npm start` is, and the chat `npm start` opens answers the question the README suggests with the
 * calculator call, its result and the answer — on the bundled model, offline. (`npm start` builds first; the build is
 * left out here because other test files read dist/ while this one runs: the chat command it then runs is run as is.)
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../", import.meta.url));
const readme = readFileSync(path.join(root, "README.md"), "utf8");
const quickStart = /## Quick start\n([\s\S]*?)\n## /.exec(readme)?.[1] ?? "";
const scripts = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8")).scripts as Record<
  string,
  string
>;
const data = mkdtempSync(path.join(tmpdir(), "tb-quick-start-"));
afterAll(() => rmSync(data, { recursive: true, force: true }));

describe("the README's quick start", () => {
  it("shows the two commands, and CI runs the second exactly", () => {
    const commands = (/```sh\n([\s\S]*?)```/.exec(quickStart)?.[1] ?? "")
      .split("\n")
      .filter(Boolean)
      .map((line) => line.replace(/\s+#.*$/, ""));
    expect(commands).toEqual(["npm ci && npm start", "npm ci && npm test"]);
    expect(readFileSync(path.join(root, ".ci", "run"), "utf8")).toMatch(/^npm ci && npm test$/m);
    expect(scripts.test).toMatch(/lint.*typecheck.*build.*vitest run/);
  });

  it("npm start chats on the bundled model: the suggested question gets the calculator call, its result, the answer", () => {
    const question = /ask "([^"]+)"/.exec(quickStart)?.[1]?.replace(/\s+/g, " ");
    expect(question).toBe("what is 15% of 47.50?");
    const steps = (scripts.start ?? "").split("&&").map((step) => step.trim());
    expect(steps[0]).toMatch(/build/);
    const chat = steps.at(-1)?.split(/\s+/) ?? [];
    expect(chat.slice(0, 2)).toEqual(["node", "dist/cli/main.js"]);
    const run = spawnSync(process.execPath, chat.slice(1), {
      cwd: root,
      input: `${question}\n/exit\n`,
      encoding: "utf8",
      timeout: 120_000,
      env: {
        ...process.env,
        NO_COLOR: "1",
        XDG_DATA_HOME: data,
        TOOLBRIDGE_MODEL: "",
        TOOLBRIDGE_BASE_URL: "",
        TOOLBRIDGE_PROVIDER: "",
      },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('calculator {"expression":"15% of 47.50"}');
    expect(run.stdout).toMatch(/✓ calculator → 7\.125/);
    expect(run.stdout).toMatch(/\n[^\n›⚙✓]*7\.125[^\n]*\n› \/exit/);
  });
});
