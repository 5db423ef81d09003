import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/run-cli.js";

// Issue 14, item 11: the chat banner says what the demo model understands, with three example prompts, and tools
// outside its training catalogue (here the filesystem tools a config adds) are not offered to it unless asked for.
const dir = mkdtempSync(path.join(tmpdir(), "tb-demo-intro-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(path.join(dir, "notes"));
writeFileSync(path.join(dir, "toolbridge.config.json"), JSON.stringify({ filesystem: { roots: ["notes"] } }));
const noModelEnv = { TOOLBRIDGE_MODEL: "", TOOLBRIDGE_BASE_URL: "", TOOLBRIDGE_PROVIDER: "" };

function chat(args: string[]) {
  return runCli(["chat", "--db", path.join(dir, "x.db"), ...args], {
    cwd: dir,
    env: noModelEnv,
    input: "/tools\n/exit\n",
    timeoutMs: 120_000,
  });
}

describe("the demo model's chat banner and tools", { timeout: 240_000 }, () => {
  it.each([
    ["by default", []],
    ["named by path", ["--model", path.join(REPO_ROOT, "models/toolbridge-demo.gguf")]],
  ])("%s: says what it understands and offers only the tools it was trained with", (_label, args) => {
    const result = chat(args);
    expect(result.status).toBe(0);
    const out = result.stdout.replace(/\s+/g, " ");
    expect(out).toContain(
      "The demo model was trained on arithmetic, dice rolls, the time in a place, converting a time",
    );
    expect(out).toContain(
      'Try "what is 15% of 47.50?", "roll 2d6+3", "what time is it in Tokyo?", "how many days until christmas?"',
    );
    expect(out.match(/not offered to it/g)).toHaveLength(1);
    expect(out).toContain("· 7 tools ·");
    expect(result.stdout).toMatch(/^ {2}calculator /m);
    expect(result.stdout).not.toMatch(/^ {2}read_file /m);
  });

  it("offers the other tools when the user asks for them with --allow", () => {
    const result = chat(["--allow", "*"]);
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^ {2}read_file /m);
    expect(result.stdout).not.toContain("not offered to it");
    expect(result.stdout.replace(/\s+/g, " ")).toContain('Try "what is 15% of 47.50?"');
  });
});
