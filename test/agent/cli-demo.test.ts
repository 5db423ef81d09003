import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { RunView } from "../../src/agent/run-view.js";
import { openSqlite } from "../helpers/open-sqlite.js";
import { cli, cliJson, FIXTURE_TOOLS } from "./cli-helpers.js";

let dir: string;
let db: string;
let out: string;
let turns: string;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-cli-"));
  db = path.join(dir, "state.db");
  out = path.join(dir, "notes.txt");
  turns = path.join(dir, "turns.jsonl");
  writeFileSync(
    turns,
    `${JSON.stringify({ calls: [{ name: "append_line", arguments: { file: out, line: "hello" } }] })}\n${JSON.stringify({ text: "Wrote it." })}\n`,
  );
});

afterEach(() => rmSync(dir, { recursive: true, force: true }));

const base = () => ["--model", `replay:${turns}`, "--tools-module", FIXTURE_TOOLS, "--db", db];

// Each step is a fresh `toolbridge` process (the built bin), a second or more apiece on a busy machine.
describe("toolbridge run / runs with the replay model", { timeout: 240_000 }, () => {
  it("pauses on a gated call, then `runs approve` and `runs resume` complete it; state is in the SQLite file", () => {
    const paused = cliJson<RunView>(["run", "write hello", "--json", ...base()]);
    expect(Object.keys(paused)).toEqual([
      "runId",
      "status",
      "stopReason",
      "answer",
      "error",
      "steps",
      "pending",
    ]);
    expect(paused).toMatchObject({
      status: "paused",
      stopReason: "awaiting-approval",
      answer: null,
      pending: [{ callId: "call_1_1", name: "append_line", arguments: { file: out, line: "hello" } }],
    });
    expect(Object.keys(paused.steps[0]!.calls[0]!)).toEqual([
      "id",
      "name",
      "arguments",
      "result",
      "approval",
    ]);

    const shown = cliJson<RunView>(["runs", "show", paused.runId, "--json", "--db", db]);
    expect(shown).toEqual(paused);

    expect(cli(["runs", "approve", paused.runId, "call_1_1", "--by", "carol", "--db", db]).stdout).toMatch(
      /runs resume/,
    );
    const done = cliJson<RunView>(["runs", "resume", paused.runId, "--json", "--db", db]);
    expect(done).toMatchObject({
      status: "finished",
      stopReason: "final-answer",
      answer: "Wrote it.",
      pending: [],
    });
    expect(readFileSync(out, "utf8")).toBe("hello\n");

    const sqlite = openSqlite(db, { readonly: true });
    try {
      expect(sqlite.prepare("SELECT status, stop_reason FROM runs").all()).toEqual([
        { status: "finished", stop_reason: "final-answer" },
      ]);
      expect(sqlite.prepare("SELECT state, outcome FROM tool_calls").all()).toEqual([
        { state: "done", outcome: "ok" },
      ]);
      expect(sqlite.prepare("SELECT decision, decided_by FROM approvals").all()).toEqual([
        { decision: "approved", decided_by: "carol" },
      ]);
      expect(sqlite.prepare("SELECT actor, action FROM audit_log").all()).toEqual([
        { actor: "carol", action: "approve" },
      ]);
    } finally {
      sqlite.close();
    }
    const traces = readdirSync(path.join(dir, "traces"));
    expect(traces).toEqual([`${paused.runId}.jsonl`]);
    const events = readFileSync(path.join(dir, "traces", traces[0]!), "utf8")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l).type);
    expect(events).toContain("approval-decided");
    expect(events.at(-1)).toBe("run-finished");
  });

  it("human output of a paused run names the pending call and exits 0", () => {
    const result = cli(["run", "write hello", ...base()]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/paused: waiting for approval of 1 call/);
    expect(result.stdout).toMatch(/call_1_1\s+append_line/);
  });

  it("deny with a reason and approve with edited (re-validated) arguments", () => {
    const paused = cliJson<RunView>(["run", "write hello", "--json", ...base()]);
    const badEdit = cli(["runs", "approve", paused.runId, "call_1_1", "--args", '{"file": 3}', "--db", db]);
    expect(badEdit.status).toBe(2);
    expect(badEdit.stderr).toMatch(/edited arguments.*invalid/);
    const denied = cli(["runs", "deny", paused.runId, "call_1_1", "--reason", "not today", "--db", db]);
    expect(denied.status).toBe(0);
    const done = cliJson<RunView>(["runs", "resume", paused.runId, "--json", "--db", db]);
    expect(done.steps[0]?.calls[0]?.approval).toMatchObject({ decision: "denied", reason: "not today" });
    expect(JSON.stringify(done.steps[0]?.calls[0]?.result)).toContain("not today");
  });

  it("--require-approval gates a tool that normally runs, --dry-run changes nothing, usage errors exit 2", () => {
    writeFileSync(
      turns,
      `${JSON.stringify({ calls: [{ name: "echo", arguments: { text: "hi" } }] })}\n${JSON.stringify({ text: "ok" })}\n`,
    );
    const gated = cliJson<RunView>(["run", "echo", "--json", "--require-approval", "echo", ...base()]);
    expect(gated.pending.map((p) => p.name)).toEqual(["echo"]);

    writeFileSync(
      turns,
      `${JSON.stringify({ calls: [{ name: "append_line", arguments: { file: out, line: "x" } }] })}\n${JSON.stringify({ text: "ok" })}\n`,
    );
    const dry = cliJson<RunView>(["run", "write", "--json", "--dry-run", ...base()]);
    expect(dry.status).toBe("finished");
    expect(JSON.stringify(dry.steps[0]?.calls[0]?.result)).toMatch(/dry run/);
    expect(() => readFileSync(out)).toThrow();

    expect(cli(["run", "x", "--json", "--max-steps", "0", ...base()]).status).toBe(2);
    expect(cli(["runs", "show", "run_missing", "--db", db]).status).toBe(2);
    expect(cli(["run", "x", "--model", "gpt-9", "--db", db]).status).toBe(2);
  });
});
