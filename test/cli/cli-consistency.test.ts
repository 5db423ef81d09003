import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";

// Issue 14, item 8: the smaller places where the CLI said something untrue or unhelpful.
const dir = mkdtempSync(path.join(tmpdir(), "tb-consistency-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const db = path.join(dir, "x.db");

describe("CLI consistency", { timeout: 120_000 }, () => {
  it("tools list --category with an unknown category names the known ones (exit 2)", () => {
    const result = runCli(["tools", "list", "--category", "nosuch", "--db", db], { cwd: dir });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/--category "nosuch" .*categories are: fun, math, memory, time/);
    expect(runCli(["tools", "list", "--category", "math", "--db", db], { cwd: dir }).stdout).toContain(
      "calculator",
    );
  });

  it("roll_dice 1000d6 states the real limit of 100 dice", () => {
    const result = runCli(["tools", "call", "roll_dice", "--args", '{"notation": "1000d6"}'], { cwd: dir });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("a roll takes 1 to 100 dice at once");
    expect(result.stderr).not.toContain("999");
  });

  it("/tools in chat shows whole statements (not ended at 'e.g.', not cut mid-word) and aligns the descriptions", () => {
    const turns = path.join(dir, "turns.jsonl");
    writeFileSync(turns, `${JSON.stringify({ text: "ok" })}\n`);
    const chat = runCli(["chat", "--model", `replay:${turns}`, "--db", db], {
      cwd: dir,
      input: "/tools\n/exit\n",
    });
    expect(chat.status).toBe(0);
    const lines = chat.stdout.split("\n").filter((l) => /^ {2}[a-z_]+ +\S/.test(l));
    expect(lines.length).toBeGreaterThan(5);
    // Its first sentence is too long for the list: it loses its examples (after ", e.g."), not its end.
    const timeDifference = lines.find((l) => l.includes("time_difference"));
    expect(timeDifference).toContain("How much time lies between two instants or dates.");
    expect(timeDifference).not.toContain("e.g.");
    expect(lines.filter((l) => l.includes("…"))).toEqual([]);
    const columns = new Set(lines.map((l) => /^ {2}\S+ +/.exec(l)?.[0].length));
    expect(columns.size).toBe(1);
  });

  it("parse --help lists the format ids", () => {
    const help = runCli(["parse", "--help"], { cwd: dir }).stdout.replace(/\s+/g, " ");
    for (const id of ["hermes", "llama3_json", "pythonic", "mistral_v11", "gpt_oss_harmony"])
      expect(help).toContain(id);
  });

  it("--require-approval wins over --auto-approve, and --help says so", () => {
    const help = runCli(["run", "--help"], { cwd: dir }).stdout.replace(/\s+/g, " ");
    expect(help).toContain("wins over --auto-approve");
    const turns = path.join(dir, "calc.jsonl");
    writeFileSync(
      turns,
      `${JSON.stringify({ calls: [{ name: "calculator", arguments: { expression: "1+1" } }] })}\n${JSON.stringify({ text: "2" })}\n`,
    );
    const run = runCli(
      [
        "run",
        "1+1",
        "--model",
        `replay:${turns}`,
        "--auto-approve",
        "--require-approval",
        "calculator",
        "--json",
        "--db",
        db,
      ],
      { cwd: dir },
    );
    expect(JSON.parse(run.stdout)).toMatchObject({ status: "paused", pending: [{ name: "calculator" }] });
  });

  it("web_search with an unreachable backend names its address", () => {
    const config = path.join(dir, "search.json");
    writeFileSync(
      config,
      JSON.stringify({ webSearch: { provider: "searxng", url: "http://127.0.0.1:9/searx/" } }),
    );
    const result = runCli(["tools", "call", "web_search", "--args", '{"query": "x"}', "--config", config], {
      cwd: dir,
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("http://127.0.0.1:9/searx/search could not be reached");
  });
});
