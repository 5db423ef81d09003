import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { CallToolResultSchema, ListToolsResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/run-cli.js";

function workspace(config?: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), "tb-cli-"));
  mkdirSync(path.join(dir, "notes"));
  writeFileSync(path.join(dir, "notes", "todo.txt"), "buy milk\n");
  if (config !== undefined) writeFileSync(path.join(dir, "toolbridge.config.json"), JSON.stringify(config));
  return dir;
}

describe("toolbridge tools", { timeout: 180_000 }, () => {
  it("lists the built-in tools as valid MCP tool objects, with filesystem tools only when roots are configured", () => {
    const bare = runCli(["tools", "list", "--json"], { cwd: workspace() });
    expect(bare.status).toBe(0);
    const bareNames = ListToolsResultSchema.parse(JSON.parse(bare.stdout)).tools.map((t) => t.name);
    expect(bareNames).toEqual(
      expect.arrayContaining(["calculator", "get_time", "convert_time", "roll_dice"]),
    );
    expect(bareNames).not.toContain("read_file");

    const withFs = runCli(["tools", "list", "--json"], {
      cwd: workspace({ filesystem: { roots: ["notes"] } }),
    });
    expect(withFs.status).toBe(0);
    const parsed = ListToolsResultSchema.parse(JSON.parse(withFs.stdout));
    expect(parsed.tools.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        "calculator",
        "get_time",
        "roll_dice",
        "read_file",
        "list_directory",
        "search_files",
      ]),
    );
    expect(parsed.tools.map((t) => t.name)).not.toContain("write_file");
  });

  it("prints a human listing grouped by category", () => {
    const result = runCli(["tools", "list"], { cwd: workspace() });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/^math\n {2}calculator/m);
    expect(result.stdout).toMatch(/^time\n/m);
  });

  it("calls the calculator: sqrt(16) → 4, exit 0, MCP CallToolResult with --json", () => {
    const result = runCli(["tools", "call", "calculator", "--args", '{"expression":"sqrt(16)"}', "--json"], {
      cwd: workspace(),
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const parsed = CallToolResultSchema.parse(JSON.parse(result.stdout));
    expect(parsed.content[0]).toEqual({ type: "text", text: "4" });
    expect(parsed.isError).toBeFalsy();
  });

  it("exits 1 when the tool reports an error, 2 for invalid input or usage, with the message on stderr", () => {
    const cwd = workspace();
    const toolError = runCli(["tools", "call", "calculator", "--args", '{"expression":"import(\\"fs\\")"}'], {
      cwd,
    });
    expect(toolError.status).toBe(1);
    expect(toolError.stderr).not.toBe("");

    const invalid = runCli(["tools", "call", "get_time", "--args", '{"format":"sometimes"}'], { cwd });
    expect(invalid.status).toBe(2);
    expect(invalid.stderr).toContain("`format` must be one of");

    const badJson = runCli(["tools", "call", "calculator", "--args", "{oops"], { cwd });
    expect(badJson.status).toBe(2);
    expect(badJson.stderr).toContain("--args is not valid JSON");

    const unknown = runCli(["tools", "call", "nope"], { cwd });
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('Unknown tool "nope"');

    const usage = runCli(["tools", "frobnicate"], { cwd });
    expect(usage.status).toBe(2);
  });

  it("reads files inside configured roots and refuses a path outside them", () => {
    const cwd = workspace({ filesystem: { roots: ["notes"] } });
    const ok = runCli(["tools", "call", "read_file", "--args", '{"path":"todo.txt"}'], { cwd });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain("buy milk");
    const outside = runCli(["tools", "call", "read_file", "--args", '{"path":"../toolbridge.config.json"}'], {
      cwd,
    });
    expect(outside.status).toBe(1);
    expect(outside.stdout).not.toContain("roots");
  });

  it("reports a broken config file clearly and exits 2", () => {
    const result = runCli(["tools", "list"], { cwd: workspace({ filesystem: { roots: [] }, tool: {} }) });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("is not a valid toolbridge config");
    expect(result.stderr).toContain("unknown key `tool`");
    expect(result.stderr).toContain("`filesystem.roots`");
  });

  it("applies allow/deny lists from the config", () => {
    const cwd = workspace({ tools: { deny: ["roll_dice", "*_time"] } });
    const names = (
      JSON.parse(runCli(["tools", "list", "--json"], { cwd }).stdout) as { tools: { name: string }[] }
    ).tools.map((t) => t.name);
    expect(names).toContain("calculator");
    expect(names).not.toContain("roll_dice");
    expect(names).not.toContain("convert_time");
    const denied = runCli(["tools", "call", "roll_dice", "--args", '{"notation":"1d6"}'], { cwd });
    expect(denied.status).toBe(2);
  });

  it("offers the memory tools: a note saved with note_save is found by memory_search; listing opens no database", () => {
    const cwd = workspace();
    const db = path.join(cwd, "memory.db");
    const listed = runCli(["tools", "list", "--json", "--db", db], { cwd });
    expect((JSON.parse(listed.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["memory_search", "note_save"]),
    );
    expect(existsSync(db)).toBe(false);

    const saved = runCli(
      [
        "tools",
        "call",
        "note_save",
        "--db",
        db,
        "--args",
        '{"title":"parking","content":"The car is on level 3, spot 42."}',
      ],
      { cwd },
    );
    expect(saved.status).toBe(0);
    const found = runCli(["tools", "call", "memory_search", "--db", db, "--args", '{"query":"car level"}'], {
      cwd,
    });
    expect(found.status).toBe(0);
    expect(found.stdout).toContain("spot 42");
  });
});
