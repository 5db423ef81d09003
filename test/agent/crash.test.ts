import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunView } from "../../src/agent/run-view.js";
import { cli, cliJson, FIXTURE_TOOLS, runUntilPausedThenKill } from "./cli-helpers.js";

let dir: string;
let db: string;
let out: string;
let turns: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-crash-"));
  db = path.join(dir, "runs.db");
  out = path.join(dir, "side-effect.txt");
  turns = path.join(dir, "turns.jsonl");
  writeFileSync(
    turns,
    [
      JSON.stringify({
        calls: [
          { name: "echo", arguments: { text: "before" } },
          { name: "append_line", arguments: { file: out, line: "written once" } },
        ],
      }),
      JSON.stringify({ text: "All done." }),
    ].join("\n"),
  );
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const lines = () => (existsSync(out) ? readFileSync(out, "utf8").split("\n").filter(Boolean) : []);

// Each step is a fresh `toolbridge` process (the built bin), a second or more apiece on a busy machine.
describe("crash safety (SIGKILL)", { timeout: 240_000 }, () => {
  it("a run killed while waiting for approval is approved and resumed by a new process; the call runs exactly once", async () => {
    const runId = await runUntilPausedThenKill([db, turns, FIXTURE_TOOLS, "append a line"]);
    expect(lines()).toEqual([]);

    const listed = cliJson<
      Array<{ runId: string; status: string; pending: Array<{ callId: string; name: string }> }>
    >(["runs", "list", "--json", "--db", db]);
    expect(listed[0]).toMatchObject({
      runId,
      status: "paused",
      pending: [{ callId: "call_1_2", name: "append_line" }],
    });

    expect(cli(["runs", "approve", runId, "call_1_2", "--by", "tester", "--db", db]).status).toBe(0);
    const resumed = cliJson<RunView>(["runs", "resume", runId, "--json", "--db", db]);
    expect(resumed).toMatchObject({
      status: "finished",
      stopReason: "final-answer",
      answer: "All done.",
      pending: [],
    });
    expect(lines()).toEqual(["written once"]);

    // Resuming again neither re-runs the call nor changes the outcome.
    const again = cli(["runs", "resume", runId, "--db", db]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/finished/);
    expect(lines()).toEqual(["written once"]);
  });

  it("a process killed right after a tool executed: the call is reported as interrupted, never re-run, and the run finishes", async () => {
    const killed = cli(
      [
        "run",
        "append a line",
        "--model",
        `replay:${turns}`,
        "--tools-module",
        FIXTURE_TOOLS,
        "--auto-approve",
        "--db",
        db,
        "--json",
      ],
      { TB_FIXTURE_KILL_AFTER_APPEND: "1" },
    );
    expect(killed.signal).toBe("SIGKILL");
    expect(lines()).toEqual(["written once"]);

    const [listed] = cliJson<Array<{ runId: string; status: string }>>([
      "runs",
      "list",
      "--json",
      "--db",
      db,
    ]);
    expect(listed?.status).toBe("running");
    const resumed = cliJson<RunView>(["runs", "resume", listed!.runId, "--json", "--db", db]);
    expect(resumed.status).toBe("finished");
    const call = resumed.steps[0]?.calls[1];
    expect(call?.result?.isError).toBe(true);
    expect(JSON.stringify(call?.result)).toMatch(/interrupted.*not run again/);
    expect(lines()).toEqual(["written once"]);
  });

  it("killed waiting for approval, then killed again right after the approved call executed: still exactly once", async () => {
    const runId = await runUntilPausedThenKill([db, turns, FIXTURE_TOOLS, "append a line"]);
    expect(cli(["runs", "approve", runId, "call_1_2", "--db", db]).status).toBe(0);
    const killed = cli(["runs", "resume", runId, "--db", db], { TB_FIXTURE_KILL_AFTER_APPEND: "1" });
    expect(killed.signal).toBe("SIGKILL");
    const resumed = cliJson<RunView>(["runs", "resume", runId, "--json", "--db", db]);
    expect(resumed.status).toBe("finished");
    expect(lines()).toEqual(["written once"]);
    expect(resumed.steps[0]?.calls[1]?.approval?.decision).toBe("approved");
  });
});
