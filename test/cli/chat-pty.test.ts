import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqlite } from "../helpers/open-sqlite.js";
import { CLI_MAIN, REPO_ROOT } from "../helpers/run-cli.js";
import { TmuxSession } from "./helpers/tmux-session.js";

let dir: string;
let tmux: TmuxSession | undefined;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-chat-pty-"));
});

afterEach(() => {
  tmux?.close();
  tmux = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe("toolbridge chat in a real terminal", { timeout: 120_000 }, () => {
  it("asks, shows the tool call, takes the approval at the prompt, runs the tool and prints the answer", async () => {
    if (!TmuxSession.isAvailable())
      throw new Error("this test drives a pseudo-terminal with tmux: apt-get install -y tmux");
    const turns = path.join(dir, "turns.jsonl");
    const db = path.join(dir, "chat.db");
    writeFileSync(
      turns,
      [
        { calls: [{ name: "calculator", arguments: { expression: "15% of 47.50" } }] },
        { text: "15% of 47.50 is 7.125, about 7.13." },
      ]
        .map((turn) => JSON.stringify(turn))
        .join("\n"),
    );
    tmux = TmuxSession.start(
      [
        process.execPath,
        CLI_MAIN,
        "chat",
        "--model",
        `replay:${turns}`,
        "--db",
        db,
        "--require-approval",
        "calculator",
      ],
      { cwd: REPO_ROOT },
    );
    await tmux.waitFor(/\/help for commands/);

    tmux.type("what is 15% of 47.50?");
    tmux.press("Enter");
    const asked = await tmux.waitFor(/\[a\]lways for this chat/);
    // The call is shown with its arguments, then the question about it — and nothing has run yet.
    expect(asked).toMatch(/⚙ calculator \{"expression":"15% of 47\.50"\}\n/);
    expect(asked).toContain(
      'Allow calculator({"expression":"15% of 47.50"})? [y]es / [n]o / [e]dit args / [a]lways for this chat',
    );
    expect(asked).not.toContain("✓ calculator");

    tmux.type("y");
    tmux.press("Enter");
    const answered = await tmux.waitFor(/about 7\.13\./);
    // The real calculator ran after the approval: its result (not the model's words) with a duration.
    expect(answered).toMatch(/✓ calculator → 7\.125 \(\d+(\.\d)? (ms|s)\)/);
    const lines = answered.split("\n");
    const result = lines.findIndex((l) => l.includes("✓ calculator"));
    const answer = lines.findIndex((l) => l.includes("15% of 47.50 is 7.125, about 7.13."));
    expect(answer).toBeGreaterThan(result);

    tmux.type("/exit");
    tmux.press("Enter");
    expect(await tmux.waitForExit()).toBe(0);
    expect(tmux.screen()).toMatch(/Conversation conv_\S+ is saved in/);

    const sqlite = openSqlite(db, { readonly: true });
    try {
      expect(sqlite.prepare("SELECT status, stop_reason, answer FROM runs").all()).toEqual([
        { status: "finished", stop_reason: "final-answer", answer: "15% of 47.50 is 7.125, about 7.13." },
      ]);
      const approval = sqlite.prepare("SELECT decision, decided_by FROM approvals").get() as {
        decision: string;
        decided_by: string;
      };
      expect(approval.decision).toBe("approved");
      expect(approval.decided_by).toMatch(/\(chat\)$/);
    } finally {
      sqlite.close();
    }
  });
});
