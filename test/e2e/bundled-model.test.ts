import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "toolbridge-bundled-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `toolbridge run <prompt>` with nothing configured: the bundled model is the default. */
function ask(prompt: string) {
  const r = runCli(["run", prompt, "--db", path.join(dir, "e2e.db")], {
    cwd: dir,
    env: { TOOLBRIDGE_MODEL: "", TOOLBRIDGE_BASE_URL: "", TOOLBRIDGE_PROVIDER: "" },
    timeoutMs: 120_000,
  });
  const call = /→ \S+ (\S+) (\{.*\})$/m.exec(r.stderr);
  const result = /← \S+ (\S+) \[(\w[\w-]*)\] (.*)$/m.exec(r.stderr);
  return {
    ...r,
    call: call ? { name: call[1], arguments: JSON.parse(call[2] as string) as unknown } : undefined,
    result: result ? { name: result[1], status: result[2], text: result[3] as string } : undefined,
    answer: r.stdout.trim(),
  };
}

describe("the bundled demo model through the CLI", () => {
  it("answers a percentage question with a calculator call and quotes its result", () => {
    const r = ask("what is 15% of 47.50?");
    expect(r.status, r.stderr).toBe(0);
    expect(r.call).toEqual({ name: "calculator", arguments: { expression: "15% of 47.50" } });
    expect(r.result).toEqual({ name: "calculator", status: "ok", text: "7.125" });
    expect(r.answer).toContain("7.125");
  }, 150_000);

  it("rolls dice with roll_dice and reports the total it got", () => {
    const r = ask("roll 2d6+3");
    expect(r.status, r.stderr).toBe(0);
    expect(r.call).toEqual({ name: "roll_dice", arguments: { notation: "2d6+3" } });
    expect(r.result?.status).toBe("ok");
    const total = /(-?\d+)$/.exec(r.result?.text ?? "")?.[1];
    expect(Number(total)).toBeGreaterThanOrEqual(5);
    expect(Number(total)).toBeLessThanOrEqual(15);
    expect(r.answer).toContain(total);
  }, 150_000);

  it("answers a time-zone question with get_time for the right zone and quotes the time", () => {
    const r = ask("what time is it in Tokyo?");
    expect(r.status, r.stderr).toBe(0);
    expect(r.call).toEqual({ name: "get_time", arguments: { timezone: "Asia/Tokyo", format: "full" } });
    expect(r.result?.status).toBe("ok");
    expect(r.answer).toContain(r.result?.text);
  }, 150_000);

  it("keeps calling tools for each new question in one chat, not only the first", () => {
    const r = runCli(["chat", "--db", path.join(dir, "chat.db")], {
      cwd: dir,
      env: { TOOLBRIDGE_MODEL: "", TOOLBRIDGE_BASE_URL: "", TOOLBRIDGE_PROVIDER: "" },
      input: "what is 15% of 47.50?\nroll 2d6+3\nwhat time is it in Tokyo?\nthanks!\n/exit\n",
      timeoutMs: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const turns = r.stdout.split(/^› /m).slice(1);
    expect(turns.map((t) => t.split("\n")[0])).toEqual([
      "what is 15% of 47.50?",
      "roll 2d6+3",
      "what time is it in Tokyo?",
      "thanks!",
      "/exit",
    ]);
    expect(turns[0]).toContain('⚙ calculator {"expression":"15% of 47.50"}');
    expect(turns[1]).toContain('⚙ roll_dice {"notation":"2d6+3"}');
    const total = /✓ roll_dice → .*= (-?\d+)/.exec(turns[1] ?? "")?.[1];
    expect(turns[1]?.trim().split("\n").at(-1)).toContain(total);
    expect(turns[2]).toContain('⚙ get_time {"timezone":"Asia/Tokyo","format":"full"}');
    // Small talk after the tool turns still gets a plain answer, no call.
    expect(turns[3]).not.toContain("⚙");
  }, 150_000);

  it("never prints tool-call markup, also when an out-of-scope question derails the model", () => {
    // Issue 29: after a note_save call the demo model answered with debris ending in `</tool_call>` (a closing tag
    // with no call), and the chat printed it.
    const r = runCli(["chat", "--db", path.join(dir, "derailed.db")], {
      cwd: dir,
      env: { TOOLBRIDGE_MODEL: "", TOOLBRIDGE_BASE_URL: "", TOOLBRIDGE_PROVIDER: "" },
      input: "how many days until Christmas?\n/exit\n",
      timeoutMs: 120_000,
    });
    expect(r.status, r.stderr).toBe(0);
    const turn = r.stdout.split(/^› /m)[1] ?? "";
    expect(turn.split("\n")[0]).toBe("how many days until Christmas?");
    expect({ turn, markup: /<\/?tool_call>/.test(turn) }).toMatchObject({ markup: false });
  }, 150_000);
});
