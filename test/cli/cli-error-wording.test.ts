import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";

// Issue 14, item 7: CLI errors name CLI flags and environment variables, and a bad --tools-module gets a message
// saying what the module must export, not a stack trace.
const dir = mkdtempSync(path.join(tmpdir(), "tb-wording-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const db = path.join(dir, "x.db");
const turns = path.join(dir, "turns.jsonl");
writeFileSync(turns, `${JSON.stringify({ text: "ok" })}\n`);

describe("CLI error wording", { timeout: 120_000 }, () => {
  it("a --tools-module exporting plain objects says what it must export, without a stack trace", () => {
    const module = path.join(dir, "plain-tools.mjs");
    writeFileSync(
      module,
      'export const tools = [{ name: "greet", description: "Say hi", inputSchema: { type: "object" }, handler: () => "hi" }];\n',
    );
    const run = runCli(["run", "hi", "--model", `replay:${turns}`, "--tools-module", module, "--db", db], {
      cwd: dir,
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('tools[0] is a plain object ("greet"), not a defineTool(...) result');
    expect(run.stderr).toContain('export "tools", an array of defineTool(');
    expect(run.stderr).not.toMatch(/TypeError|\n\s+at /);
  });

  it("names ANTHROPIC_API_KEY and the config key, not the library's apiKey option", () => {
    const run = runCli(["run", "hi", "--anthropic", "--db", db], {
      cwd: dir,
      env: { ANTHROPIC_API_KEY: "" },
    });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("set ANTHROPIC_API_KEY (or name another variable with apiKeyEnv");
    expect(run.stderr).not.toContain("pass apiKey");
  });

  it("names --chat-template when a completions server's model has no built-in template", () => {
    const run = runCli(
      [
        "run",
        "hi",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--api",
        "completions",
        "--model-name",
        "foo",
        "--db",
        db,
      ],
      { cwd: dir },
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toContain("pass --chat-template <dir>/tokenizer_config.json");
    expect(run.stderr).not.toContain("pass chatTemplate {");
  });

  it("a file that is not a GGUF is reported in one clean sentence (no double period)", () => {
    const bad = path.join(dir, "bad.gguf");
    writeFileSync(bad, "root\n");
    const run = runCli(["run", "hi", "--model", bad, "--db", db], { cwd: dir });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('got "root". Is it a GGUF');
    expect(run.stderr).not.toContain("..");
  });
});
