import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/run-cli.js";

// Issue 14, items 2 and 3: naming the bundled model by its path behaves like not naming it, and every model flag
// applies to the default model (a bad value is an error whatever the model).
const dir = mkdtempSync(path.join(tmpdir(), "tb-default-model-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const bundled = path.join(REPO_ROOT, "models/toolbridge-demo.gguf");

describe("the bundled model named by path", { timeout: 120_000 }, () => {
  it.each([
    ["relative, from the repository", path.relative(REPO_ROOT, bundled), REPO_ROOT],
    ["absolute, from another folder", bundled, dir],
  ])("answers 'what is 2+2' like the default (%s)", (_label, model, cwd) => {
    const run = runCli(["run", "what is 2+2", "--model", model, "--db", path.join(dir, "runs.db")], { cwd });
    expect(run.stderr).not.toMatch(/model-error|context shift/);
    expect(run.stdout).toMatch(/\b4\b/);
    expect(run.status).toBe(0);
  });
});

describe("model flags with the default model", { timeout: 120_000 }, () => {
  it("refuses --tool-choice maybe, naming the flag and the accepted values (exit 2), before loading the model", () => {
    const run = runCli(["run", "what is 2+2", "--tool-choice", "maybe", "--db", path.join(dir, "tc.db")], {
      cwd: dir,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(/--tool-choice must be auto, required, none or the name of an offered tool/);
    expect(run.stderr).toContain("calculator");
    // The usage error is the whole answer: no "Loading toolbridge-demo.gguf…" / "Could not load …" before it.
    expect(run.stderr).not.toMatch(/Loading|Could not load/);
    expect(run.stdout).toBe("");
  });

  it("names the token limit when --max-tokens 3 cuts the model's tool call (stop reason length, exit 1)", () => {
    const run = runCli(["run", "what is 2+2", "--max-tokens", "3", "--db", path.join(dir, "mt.db")], {
      cwd: dir,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(/stopped: length \(The model reached its token limit \(--max-tokens/);
    expect(run.stderr).not.toContain("max-consecutive-failures");
  });

  it("applies --tool-choice none to the default model: no tool is called", () => {
    const run = runCli(
      ["run", "what is 2+2", "--tool-choice", "none", "--json", "--db", path.join(dir, "none.db")],
      { cwd: dir },
    );
    const view = JSON.parse(run.stdout) as { steps: Array<{ calls: unknown[] }> };
    expect(view.steps.flatMap((s) => s.calls)).toEqual([]);
  });
});
