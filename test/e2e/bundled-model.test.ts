import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BUNDLED_MODEL_TOOLS } from "../../src/models/bundled-model.js";
import { REPO_ROOT, runCli } from "../helpers/run-cli.js";

const dir = mkdtempSync(path.join(os.tmpdir(), "toolbridge-bundled-e2e-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * `TOOLBRIDGE_E2E_MODEL=file.gguf` runs this file against a candidate for the bundled model instead (offered the
 * bundled model's tools, as the bundled file is): how a newly trained model is checked before it replaces
 * models/toolbridge-demo.gguf, including the second generation's acceptance tests below.
 */
const candidate = process.env.TOOLBRIDGE_E2E_MODEL
  ? path.resolve(REPO_ROOT, process.env.TOOLBRIDGE_E2E_MODEL)
  : undefined;
const modelArgs = candidate ? ["--model", candidate, "--allow", BUNDLED_MODEL_TOOLS.join(",")] : [];
const env = { TOOLBRIDGE_MODEL: "", TOOLBRIDGE_BASE_URL: "", TOOLBRIDGE_PROVIDER: "" };

/** `toolbridge run <prompt>` with nothing configured: the bundled model is the default. */
function ask(prompt: string) {
  const r = runCli(["run", prompt, "--db", path.join(dir, "e2e.db"), ...modelArgs], {
    cwd: dir,
    env,
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

/** `toolbridge chat` fed these lines (then /exit) on its own database; `turns` is its output split at each prompt. */
function chat(db: string, lines: readonly string[]) {
  const r = runCli(["chat", "--db", path.join(dir, db), ...modelArgs], {
    cwd: dir,
    env,
    input: `${[...lines, "/exit"].join("\n")}\n`,
    timeoutMs: 120_000,
  });
  return { ...r, turns: r.stdout.split(/^› /m).slice(1) };
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
    const r = chat("chat.db", [
      "what is 15% of 47.50?",
      "roll 2d6+3",
      "what time is it in Tokyo?",
      "thanks!",
    ]);
    expect(r.status, r.stderr).toBe(0);
    const { turns } = r;
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
    const r = chat("derailed.db", ["how many days until Christmas?"]);
    expect(r.status, r.stderr).toBe(0);
    const turn = r.turns[0] ?? "";
    expect(turn.split("\n")[0]).toBe("how many days until Christmas?");
    expect({ turn, markup: /<\/?tool_call>/.test(turn) }).toMatchObject({ markup: false });
  }, 150_000);

  it("finishes a request with letters outside ASCII, copying none it was not given", () => {
    // The chat hung here for good (the call body's grammar and the model's ban on raw byte tokens left no token).
    const request = "remember that my café is Zoë's on 5th";
    const r = ask(request);
    expect(r.status, r.stderr).toBe(0);
    expect(r.call?.name).toBe("note_save");
    const given = new Set(request.match(/[^\x00-\x7F]/gu));
    for (const c of JSON.stringify(r.call?.arguments).match(/[^\x00-\x7F]/gu) ?? [])
      expect(given).toContain(c);
    expect(r.answer).not.toBe("");
  }, 150_000);

  it("answers a question it cannot serve right after the quick start's arithmetic with what it can do, not a call", () => {
    // Generation 4, shown the previous request, answered the world cup with calculator `2018 / 24`.
    const r = chat("after-tool.db", ["what is 15% of 47.50?", "who won the world cup in 2018"]);
    expect(r.status, r.stderr).toBe(0);
    const { turns } = r;
    expect(turns[0]).toContain('⚙ calculator {"expression":"15% of 47.50"}');
    expect(turns[1]?.split("\n")[0]).toBe("who won the world cup in 2018");
    expect(turns[1]).not.toContain("⚙");
    expect(turns[1]).toMatch(/can't|cannot/);
    expect(turns[1]).toMatch(/\bmath\b/);
  }, 150_000);

  it('takes a request chained on with "now" as a new one: no call for what it cannot do, the next request\'s own tool', () => {
    // Generation 5 read "now text Sam I'm late" right after a roll as a follow-up (get_time, then time_difference) in
    // 10 of 11 chats tried; generation 6 in none of 18. The roll's result is live: each chat sees another one.
    const r = chat("chained.db", [
      "roll 2d8",
      "now text Sam I'm late",
      "alright, now what time is it in Tokyo",
    ]);
    expect(r.status, r.stderr).toBe(0);
    const { turns } = r;
    expect(turns[0]).toContain('⚙ roll_dice {"notation":"2d8"}');
    expect(turns[1]?.split("\n")[0]).toBe("now text Sam I'm late");
    expect(turns[1]).not.toContain("⚙");
    expect(turns[1]).toMatch(/can't|cannot/);
    expect(turns[2]).toContain('⚙ get_time {"timezone":"Asia/Tokyo"');
    expect(turns[2]).not.toContain("roll_dice");
  }, 150_000);
});

// Issue 35's acceptance through the CLI: a time conversion, a date difference, a tool error answered honestly, a
// follow-up that needs the previous turn, and (below) a note with a value never seen in training found again in a
// later chat.
describe("the bundled demo model on everyday requests", () => {
  it("converts a clock time between two cities with convert_time and states the time there", () => {
    const r = ask("when it's 3pm in New York what time is it in London?");
    expect(r.status, r.stderr).toBe(0);
    expect(r.call?.name).toBe("convert_time");
    expect(r.call?.arguments).toMatchObject({
      from_timezone: "America/New_York",
      to_timezone: "Europe/London",
    });
    expect(r.result?.status).toBe("ok");
    // 3 PM in New York, whatever the date: London is five hours ahead, or four for a few weeks a year.
    expect(r.result?.text).toMatch(/3:00 PM E[SD]T \(America\/New_York\) is .*(8|7):00 PM (GMT|BST)/);
    const there = /(\d{1,2}:\d\d [AP]M) (GMT|BST) \(Europe\/London\)/.exec(r.result?.text ?? "")?.[1];
    expect(r.answer).toContain(there);
  }, 150_000);

  it("names the zone it was asked about exactly in its answer, as the tool's call did", () => {
    // Without copied words the model wrote "Australia/Hobart_Harbour" and "Europe/Vienna" for these.
    for (const [request, zone] of [
      ["which date is it now in Australia/Hobart", "Australia/Hobart"],
      ["Got the time for Europe/Vilnius?", "Europe/Vilnius"],
    ] as const) {
      const r = ask(request);
      expect(r.status, r.stderr).toBe(0);
      expect(r.call?.arguments).toMatchObject({ timezone: zone });
      expect(r.answer).toMatch(new RegExp(`${zone.replace("/", "\\/")}(?![\\w/])`));
    }
  }, 150_000);

  it("counts the days between two dates with time_difference and states the count", () => {
    const r = ask("how many days between 2026-03-01 and 2026-06-15?");
    expect(r.status, r.stderr).toBe(0);
    expect(r.call).toMatchObject({
      name: "time_difference",
      arguments: { from: "2026-03-01", to: "2026-06-15" },
    });
    expect(r.result?.text).toContain("106 days");
    expect(r.answer).toContain("106 days");
  }, 150_000);

  it("says a tool failed, with no number it made up, when the calculator reports an error", () => {
    const r = ask("what's 10 divided by 0");
    expect(r.status, r.stderr).toBe(0);
    expect(r.call?.name).toBe("calculator");
    expect(r.result?.status).toBe("tool-error");
    expect(r.answer).toMatch(/\b(can't|couldn't|cannot|sorry|failed|not)\b/i);
    for (const n of r.answer.match(/\d+(?:\.\d+)?/g) ?? []) expect(["10", "0"]).toContain(n);
  }, 150_000);

  it("answers a follow-up from the previous turn of the chat", () => {
    const r = chat("follow.db", ["what's 15% of 80?", "and what about 20%?"]);
    expect(r.status, r.stderr).toBe(0);
    const { turns } = r;
    expect(turns[0]).toContain('⚙ calculator {"expression":"15% of 80"}');
    expect(turns[1]).toContain('⚙ calculator {"expression":"20% of 80"}');
    expect(turns[1]?.trim().split("\n").at(-1)).toContain("16");
  }, 150_000);
});

// A note with a value never seen in training ("plinth3390"), saved in one chat and found in a later one: the call
// grammar holds the note's words to the user's; in the later chat memory_search returns the note and what the person
// wrote earlier (not the asking run's own message, nor the model's earlier answers), and the answer writes the value
// out whole once the model begins it (copied words: the model alone wrote "plied3390").
describe("the bundled demo model with notes across chats", () => {
  it("saves a note with a value it never saw in training, and a later chat finds it and states it", () => {
    const first = chat("notes.db", ["remember that my bike lock code is plinth3390"]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(
      /⚙ note_save \{"title":"[^"]*bike lock[^"]*","content":"[^"]*plinth3390[^"]*"/,
    );
    const later = chat("notes.db", ["what is my bike lock code?"]);
    expect(later.status, later.stderr).toBe(0);
    expect(later.stdout).toMatch(/⚙ memory_search \{"query":"[^"]*bike/);
    const answer = later.turns[0]?.trim().split("\n").at(-1);
    expect(answer).toContain("plinth3390");
  }, 250_000);
});
