import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CLI_MAIN, REPO_ROOT, runCli } from "../helpers/run-cli.js";
import { startServe, stopAllServes } from "../helpers/serve-process.js";

// Issue 14, item 6: `mcp` and `serve` offer the tools `tools list` shows, the memory tools included, and like
// `tools list` they open no database until a memory tool is called.
const dir = mkdtempSync(path.join(tmpdir(), "tb-same-tools-"));
const db = path.join(dir, "memory.db");
afterAll(() => rmSync(dir, { recursive: true, force: true }));
/** Tools from a module (`--tools-module`): the same on every command that offers tools. */
const TOOLS_MODULE = path.join(REPO_ROOT, "test/web/fixtures/web-tools.mjs");

const children: ChildProcessWithoutNullStreams[] = [];
afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGTERM");
  await stopAllServes();
});

function start(args: string[]): ChildProcessWithoutNullStreams {
  const child = spawn(process.execPath, [CLI_MAIN, ...args], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: "1" },
  });
  children.push(child);
  return child;
}

/** Resolves with the first stdout line `match` accepts. */
function lineMatching<T>(
  child: ChildProcessWithoutNullStreams,
  match: (line: string) => T | undefined,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    let stderr = "";
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.stdout.on("data", (chunk) => {
      buffer += chunk;
      for (let i = buffer.indexOf("\n"); i >= 0; i = buffer.indexOf("\n")) {
        const found = match(buffer.slice(0, i));
        buffer = buffer.slice(i + 1);
        if (found !== undefined) resolve(found);
      }
    });
    child.on("exit", (code) => reject(new Error(`exited ${code} first: ${stderr}`)));
  });
}

const INIT = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "test", version: "1" } },
};
const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list", params: {} };

function toolNames(result: unknown): string[] {
  return ((result as { tools: Array<{ name: string }> }).tools ?? []).map((t) => t.name).sort();
}

describe("mcp, serve and tools list offer the same tools", { timeout: 120_000 }, () => {
  const listed = (...more: string[]) => {
    const list = runCli(["tools", "list", "--json", "--db", db, ...more], { cwd: dir });
    expect(list.status).toBe(0);
    return toolNames(JSON.parse(list.stdout));
  };

  it.each([
    ["memory tools included", [], ["memory_search", "note_save"]],
    [
      "with --tools-module, its tools included",
      ["--tools-module", TOOLS_MODULE],
      ["write_note", "plan_trip"],
    ],
  ])("mcp (JSON-RPC lines over stdio) lists what tools list lists, %s", async (_, more, included) => {
    const expected = listed(...more);
    expect(expected).toEqual(expect.arrayContaining(included));
    const child = start(["mcp", "--db", db, ...more]);
    const answer = lineMatching(child, (line) => {
      const message = JSON.parse(line) as { id?: number; result?: unknown };
      return message.id === 2 ? message.result : undefined;
    });
    child.stdin.write(`${JSON.stringify(INIT)}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    child.stdin.write(`${JSON.stringify(LIST)}\n`);
    expect(toolNames(await answer)).toEqual(expected);
    expect(existsSync(db)).toBe(false);
  });

  it("serve (MCP over HTTP) lists what tools list lists, memory tools included", async () => {
    const expected = listed();
    const serve = await startServe(["--db", db]);
    const url = serve.url;
    const post = async (body: unknown, session?: string) => {
      const response = await fetch(`${url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2025-06-18",
          ...(session ? { "mcp-session-id": session } : {}),
        },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      const json = text.trimStart().startsWith("{")
        ? text
        : (text
            .split("\n")
            .filter((l) => l.startsWith("data:"))
            .map((l) => l.slice(5))
            .pop() ?? "null");
      return { session: response.headers.get("mcp-session-id") ?? undefined, message: JSON.parse(json) };
    };
    const init = await post(INIT);
    await post({ jsonrpc: "2.0", method: "notifications/initialized" }, init.session);
    const list = await post(LIST, init.session);
    expect(toolNames((list.message as { result: unknown }).result)).toEqual(expected);
    expect(existsSync(db)).toBe(false);
  });
});

describe("--tools-module on every command that offers tools", { timeout: 120_000 }, () => {
  const module = path.join(dir, "greet-tools.mjs");
  writeFileSync(
    module,
    `import { defineTool } from ${JSON.stringify(path.join(REPO_ROOT, "dist/index.js"))};
export const tools = [defineTool({
  name: "greet",
  description: "Greet someone by name.",
  inputSchema: { type: "object", properties: { name: { type: "string" } }, required: ["name"] },
  annotations: { readOnlyHint: true },
  handler: ({ name }) => \`Hello, \${name}!\`,
})];
`,
  );

  it("tools list shows the module's tool, tools call runs it, and mcp offers it", async () => {
    const list = runCli(["tools", "list", "--json", "--db", db, "--tools-module", module], { cwd: dir });
    expect(list.status, list.stderr).toBe(0);
    expect(toolNames(JSON.parse(list.stdout))).toContain("greet");
    const call = runCli(["tools", "call", "greet", "--args", '{"name": "Ada"}', "--tools-module", module], {
      cwd: dir,
    });
    expect(call.status, call.stderr).toBe(0);
    expect(call.stdout).toContain("Hello, Ada!");
    const child = start(["mcp", "--db", db, "--tools-module", module]);
    const answer = lineMatching(child, (line) => {
      const message = JSON.parse(line) as { id?: number; result?: unknown };
      return message.id === 2 ? message.result : undefined;
    });
    child.stdin.write(`${JSON.stringify(INIT)}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
    child.stdin.write(`${JSON.stringify(LIST)}\n`);
    expect(toolNames(await answer)).toContain("greet");
  });
});
