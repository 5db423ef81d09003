import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/run-cli.js";

/**
 * `--db` with a URL of a database toolbridge does not serve must fail before anything is stored: taken as a path, the
 * URL became an SQLite file (`./postgres:/…`) and the user's runs went there while they believed them in their server.
 * Every command that takes --db, as a row.
 */
const root = mkdtempSync(path.join(tmpdir(), "tb-db-url-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const cwd = path.join(root, "cwd");
mkdirSync(cwd);
const replay = path.join(root, "turns.jsonl");
writeFileSync(replay, `${JSON.stringify({ text: "hi" })}\n`);

const URL = "mysql://app:s3cret@db.example:3306/app";

const commands: Array<[string, string[]]> = [
  ["run", ["run", "hello", "--model", `replay:${replay}`, "--db", URL]],
  ["runs list", ["runs", "list", "--db", URL]],
  ["runs show", ["runs", "show", "run_x", "--db", URL]],
  ["tools list", ["tools", "list", "--db", URL]],
  ["tools call", ["tools", "call", "get_current_time", "--args", "{}", "--db", URL]],
  ["chat", ["chat", "--model", `replay:${replay}`, "--db", URL]],
  ["mcp", ["mcp", "--db", URL]],
  ["serve", ["serve", "--port", "0", "--db", URL]],
];

describe("--db with a URL toolbridge does not serve", { timeout: 120_000 }, () => {
  it.each(commands)("%s: exit 2, names the URL without its password, creates nothing", (_name, args) => {
    const result = runCli(args, { cwd, env: { XDG_DATA_HOME: path.join(root, "data") } });
    expect(result.status, result.stderr).toBe(2);
    expect(result.stderr).toContain("mysql://app:***@db.example:3306/app is a URL");
    expect(result.stderr).not.toContain("s3cret");
    expect(readdirSync(cwd)).toEqual([]);
    expect(readdirSync(root).sort()).toEqual(["cwd", "turns.jsonl"]);
  });
});
