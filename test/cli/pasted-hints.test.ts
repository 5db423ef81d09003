import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { CLI_MAIN, runCli } from "../helpers/run-cli.js";

// Issue 14, item 4: every command the CLI prints as advice works when pasted as is, and reading commands on a
// database that does not exist say so and create nothing.
const dir = mkdtempSync(path.join(tmpdir(), "tb-hints-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The `toolbridge …` commands a text prints, one per line or between backticks. */
function printedCommands(text: string): string[] {
  return [...text.matchAll(/(?:^\s*|`)(toolbridge [^`\n]+)/gm)].map((m) => (m[1] as string).trim());
}

/** Paste a printed command into a shell, in another folder than the one it was printed in. */
function paste(command: string, input = "") {
  const elsewhere = path.join(dir, "elsewhere");
  mkdirSync(elsewhere, { recursive: true });
  const result = spawnSync(
    "sh",
    ["-c", command.replace(/^toolbridge /, `"${process.execPath}" "${CLI_MAIN}" `)],
    {
      cwd: elsewhere,
      env: { ...process.env, NO_COLOR: "1" },
      input,
      encoding: "utf8",
      timeout: 60_000,
    },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("printed hints, pasted as is", { timeout: 180_000 }, () => {
  it("a paused run's approve and resume commands carry --db and complete the run", () => {
    const folder = path.join(dir, "my data");
    mkdirSync(folder);
    const db = path.join(folder, "runs.db");
    const turns = path.join(dir, "turns.jsonl");
    writeFileSync(
      turns,
      `${JSON.stringify({ calls: [{ name: "calculator", arguments: { expression: "6*7" } }] })}\n${JSON.stringify({ text: "It is 42." })}\n`,
    );
    const run = runCli(
      ["run", "what is 6*7", "--model", `replay:${turns}`, "--require-approval", "calculator", "--db", db],
      { cwd: dir },
    );
    expect(run.status).toBe(0);
    const hints = printedCommands(run.stdout);
    const approve = hints.find((h) => h.includes("runs approve"));
    const resume = hints.find((h) => h.includes("runs resume"));
    expect(approve).toContain("--db");
    expect(resume).toContain("--db");

    const approved = paste(approve as string);
    expect(approved.stderr).toBe("");
    expect(approved.status).toBe(0);
    // The decision prints the next step, which must paste as well.
    const next = printedCommands(approved.stdout).find((h) => h.includes("runs resume"));
    expect(next).toBe(resume);
    const resumed = paste(resume as string);
    expect(resumed.status).toBe(0);
    expect(resumed.stdout).toBe("It is 42.\n");
  });

  it("chat's `--conversation` hint carries --db and --config and continues the conversation", () => {
    const db = path.join(dir, "chat.db");
    const config = path.join(dir, "tb.json");
    writeFileSync(config, JSON.stringify({ tools: { allow: ["calculator"] } }));
    const turns = path.join(dir, "chat-turns.jsonl");
    writeFileSync(turns, `${JSON.stringify({ text: "Hello." })}\n`);
    const chat = runCli(["chat", "--db", db, "--config", config, "--model", `replay:${turns}`], {
      cwd: dir,
      input: "hi\n",
    });
    expect(chat.status).toBe(0);
    const hint = printedCommands(chat.stdout).find((h) => h.includes("--conversation"));
    expect(hint).toContain(`--db ${db}`);
    expect(hint).toContain(`--config ${config}`);
    const again = paste(`${hint} --model replay:${turns}`, "/tools\n/exit\n");
    expect(again.stderr).toBe("");
    expect(again.status).toBe(0);
    // The pasted --config applies: only the allowed tool is offered.
    expect(again.stdout).toMatch(/· 1 tool ·/);
  });
});

describe("reading commands on a database that does not exist", { timeout: 60_000 }, () => {
  const missing = path.join(dir, "nonexistent", "dir", "x.db");

  it.each([
    [["runs", "list"]],
    [["runs", "show", "run_x"]],
    [["runs", "resume", "run_x"]],
    [["runs", "approve", "run_x", "call_x"]],
    [["chat", "--conversation", "conv_x", "--model", "replay:turns.jsonl"]],
  ])("%j says so (exit 2) and creates nothing", (args) => {
    writeFileSync(path.join(dir, "turns.jsonl"), `${JSON.stringify({ text: "unused" })}\n`);
    const result = runCli([...args, "--db", missing], { cwd: dir });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`No database at ${missing}`);
    expect(existsSync(path.join(dir, "nonexistent"))).toBe(false);
  });
});
