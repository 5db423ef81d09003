import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openSqlite } from "../helpers/open-sqlite.js";
import { CLI_MAIN, runCli } from "../helpers/run-cli.js";

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-chat-pipe-"));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

const calc = (expression: string) => ({ calls: [{ name: "calculator", arguments: { expression } }] });

describe("toolbridge chat with stdin from a pipe (scripts)", { timeout: 120_000 }, () => {
  it("reads messages and approval answers line by line: edit, always, and a call that no longer asks", () => {
    const turns = path.join(dir, "turns.jsonl");
    const db = path.join(dir, "chat.db");
    writeFileSync(
      turns,
      [
        calc("1+1"),
        { text: "First done." },
        calc("3*3"),
        { text: "Second done." },
        calc("10/4"),
        { text: "Third done." },
      ]
        .map((turn) => JSON.stringify(turn))
        .join("\n"),
    );
    const input = ["first", "e", '{"expression": "2+2"}', "second", "a", "third", "/tools", "/exit", ""].join(
      "\n",
    );
    // The model comes from the environment here, as a script would set it.
    const result = runCli(["chat", "--db", db, "--require-approval", "calculator"], {
      input,
      env: { TOOLBRIDGE_MODEL: `replay:${turns}` },
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const out = result.stdout;
    // Edited arguments were re-validated and run instead of the model's.
    expect(out).toContain('Allow calculator({"expression":"1+1"})?');
    expect(out).toMatch(/✓ calculator → 4 /);
    expect(out).not.toMatch(/✓ calculator → 2 /);
    // "always": the second call ran after one question, the third without any.
    expect(out.match(/Allow calculator/g)).toHaveLength(2);
    expect(out).toMatch(/✓ calculator → 9 /);
    expect(out).toMatch(/✓ calculator → 2\.5 /);
    for (const answer of ["First done.", "Second done.", "Third done."]) expect(out).toContain(answer);
    expect(out).toMatch(/calculator .*\[always allowed in this chat\]/);

    const sqlite = openSqlite(db, { readonly: true });
    try {
      // One conversation, continued by each message.
      expect(
        sqlite.prepare("SELECT COUNT(DISTINCT conversation_id) AS n, COUNT(*) AS runs FROM runs").get(),
      ).toEqual({
        n: 1,
        runs: 3,
      });
      // Two decisions at the prompt (the edit keeps the model's original arguments); the third call needed none.
      const approvals = sqlite
        .prepare("SELECT decision, decided_by, original_arguments FROM approvals ORDER BY decided_at")
        .all() as Array<{ decision: string; decided_by: string; original_arguments: string | null }>;
      expect(approvals).toHaveLength(2);
      expect(approvals[0]).toMatchObject({
        decision: "approved",
        original_arguments: '{"expression":"1+1"}',
      });
      expect(approvals[1]?.decided_by).toMatch(/\(chat\): always$/);
    } finally {
      sqlite.close();
    }
  });

  it("--json prints every event as a JSON line on stdout, and the session's words on stderr", () => {
    const turns = path.join(dir, "json-turns.jsonl");
    writeFileSync(turns, [calc("6*7"), { text: "It is 42." }].map((turn) => JSON.stringify(turn)).join("\n"));
    const result = runCli(
      [
        "chat",
        "--json",
        "--model",
        `replay:${turns}`,
        "--db",
        path.join(dir, "json.db"),
        "--require-approval",
        "calculator",
      ],
      { input: "multiply\ny\n" },
    );
    expect(result.status).toBe(0);
    const events = result.stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; [key: string]: unknown });
    const types = events.map((e) => e.type);
    for (const type of ["call-finished", "approval-requested", "run-paused", "run-resumed", "tool-result"]) {
      expect(types).toContain(type);
    }
    expect(types.indexOf("run-paused")).toBeLessThan(types.indexOf("tool-result"));
    expect(events.find((e) => e.type === "tool-result")).toMatchObject({ name: "calculator", status: "ok" });
    expect(events.at(-1)).toMatchObject({ type: "run-finished", status: "finished", answer: "It is 42." });
    expect(result.stderr).toContain('Allow calculator({"expression":"6*7"})?');
  });

  it("with no model configured, runs the bundled demo model and says once what it is", () => {
    const empty = mkdtempSync(path.join(dir, "nomodel-"));
    const result = runCli(["chat", "--db", path.join(empty, "x.db")], {
      cwd: empty,
      env: { TOOLBRIDGE_MODEL: "", TOOLBRIDGE_BASE_URL: "", TOOLBRIDGE_PROVIDER: "" },
      input: "what is 15% of 47.50?\n",
    });
    expect(result.status).toBe(0);
    expect(result.stderr.match(/bundled demo model/g)).toHaveLength(1);
    expect(result.stderr).toContain("--model <file.gguf>");
    expect(result.stdout).toContain("calculator");
    expect(result.stdout).toContain("7.125");
  });
});

/** The command lines of the processes whose parent is `pid` (Linux's /proc). */
function childCommands(pid: number): string[] {
  const commands: string[] = [];
  for (const entry of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === pid) commands.push(readFileSync(`/proc/${entry}/cmdline`, "utf8").replace(/\0/g, " "));
    } catch {
      // gone meanwhile
    }
  }
  return commands;
}

describe.skipIf(process.platform !== "linux")(
  "toolbridge chat and its calculator",
  { timeout: 120_000 },
  () => {
    it("starts the calculator's workers with the chat, before the first question, so the first call finds one", async () => {
      const turns = path.join(dir, "calc-turns.jsonl");
      writeFileSync(turns, `${JSON.stringify(calc("2+2"))}\n${JSON.stringify({ text: "Four." })}\n`);
      const child = spawn(process.execPath, [CLI_MAIN, "chat", "--db", path.join(dir, "calc.db")], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: "1", TOOLBRIDGE_MODEL: `replay:${turns}` },
      });
      let out = "";
      child.stdout.on("data", (chunk: Buffer) => {
        out += chunk.toString();
      });
      try {
        await vi.waitFor(() => expect(out).toContain("toolbridge chat ·"), {
          timeout: 60_000,
          interval: 100,
        });
        // Nothing asked yet: the workers are there because the chat started them.
        await vi.waitFor(
          () => expect(childCommands(child.pid as number).join("\n")).toContain("calculator-worker"),
          { timeout: 30_000, interval: 100 },
        );
        child.stdin.write("what is 2+2?\n/exit\n");
        await new Promise((resolve) => child.once("exit", resolve));
        expect(out).toMatch(/✓ calculator → 4 /);
      } finally {
        child.kill("SIGTERM");
      }
    });
  },
);
