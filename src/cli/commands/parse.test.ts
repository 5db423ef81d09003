import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "../../../test/helpers/run-cli.js";
import { PLANNED_PROTOCOL_IDS } from "../../protocols/protocol-ids.js";

const dir = mkdtempSync(join(tmpdir(), "toolbridge-parse-"));

// The built bin, as a user runs it, with real stdin.
function cli(args: string[], stdin: string) {
  const r = runCli(["parse", ...args], { input: stdin });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe("toolbridge parse", () => {
  it("prints the calls, content and reasoning of one output", () => {
    const r = cli(
      ["--format", "hermes"],
      '<think>hm</think>Sure.<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({
      calls: [{ name: "get_weather", arguments: { city: "Paris" } }],
      content: "Sure.",
      reasoning: "hm",
      errors: [],
    });
  });

  it("coerces by the --tools schemas and honours --prefix", () => {
    const tools = join(dir, "tools.json");
    writeFileSync(
      tools,
      JSON.stringify([
        { name: "f", inputSchema: { type: "object", properties: { n: { type: "integer" } } } },
      ]),
    );
    const r = cli(["--format", "pythonic", "--tools", tools, "--prefix", "<think>"], 'why</think>[f(n="4")]');
    expect(JSON.parse(r.stdout)).toMatchObject({
      calls: [{ name: "f", arguments: { n: 4 } }],
      reasoning: "why",
    });
  });

  it("reports truncation", () => {
    const r = cli(["--format", "tag_tool"], '<tool>{"name": "a", "arguments": {"x": "cut');
    expect(JSON.parse(r.stdout)).toMatchObject({ calls: [], truncated: true });
  });

  it("--jsonl prints one result per line with its id; a malformed line gives an error line and exit 2", () => {
    const input = [
      JSON.stringify({ id: 1, format: "pythonic", text: "[f(a=1)]" }),
      "not json",
      JSON.stringify({ id: "b", format: "json_tool_calls", text: "plain answer" }),
    ].join("\n");
    const r = cli(["--jsonl"], input);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatchObject({ id: 1, calls: [{ name: "f", arguments: { a: 1 } }] });
    expect(lines[1].error).toMatch(/not valid JSON/);
    expect(lines[2]).toEqual({ id: "b", calls: [], content: "plain answer", reasoning: "", errors: [] });
    expect(r.code).toBe(2);
  });

  it("--jsonl with well-formed lines exits 0", () => {
    const r = cli(["--jsonl"], `${JSON.stringify({ id: 1, format: "hermes", text: "hi" })}\n`);
    expect(r.code).toBe(0);
  });

  it("an unknown or unimplemented format is a usage error (exit 2)", () => {
    expect(cli(["--format", "nope"], "x").code).toBe(2);
    const planned = PLANNED_PROTOCOL_IDS[0];
    if (planned) {
      const r = cli(["--format", planned], "x");
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/not implemented yet/);
    }
  });
});
