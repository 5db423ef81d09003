import { execFile, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { resultText } from "../../src/tools/normalize-tool-result.js";
import { CLI_MAIN } from "../helpers/run-cli.js";
import { type ServeProcess, startServe } from "../helpers/serve-process.js";
import { waitFor } from "../helpers/wait-for.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);

/** The built bin, as users run it (test/global-setup.ts rebuilds it when sources are newer). */
function cliArgs(): string[] {
  return [CLI_MAIN];
}

/**
 * The MCP Inspector 2.x launcher, from test/node22-tools (Inspector 2 declares Node 22.19+; installing it with the
 * project would make `npm ci` on Node 20 warn): `npm ci --prefix test/node22-tools`, as .ci/run's Node 24 leg does.
 * Without it the Inspector tests are skipped, saying so.
 */
function inspectorCli(): string | undefined {
  try {
    const tools = createRequire(path.join(repo, "test/node22-tools/package.json"));
    const cli = path.join(
      path.dirname(tools.resolve("@modelcontextprotocol/inspector/package.json")),
      "clients/launcher/build/index.js",
    );
    return existsSync(cli) ? cli : undefined;
  } catch {
    return undefined;
  }
}

function run(
  args: string[],
  options: { cwd?: string; timeout?: number } = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      args,
      { cwd: options.cwd ?? repo, timeout: options.timeout ?? 60_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

let workDir: string;
beforeAll(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "toolbridge-cli-mcp-"));
  await writeFile(
    path.join(workDir, "toolbridge.config.json"),
    JSON.stringify({ mcpServers: { everything: { command: process.execPath, args: [EVERYTHING] } } }),
  );
});
afterAll(async () => {
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

// Each test starts real processes (our CLI, mounted servers, the Inspector): allow for a slow, shared machine.
vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

describe("toolbridge mcp (stdio)", () => {
  it("writes nothing but JSON-RPC to stdout", async () => {
    const child = spawn(process.execPath, [...cliArgs(), "mcp"], { cwd: repo });
    const lines: string[] = [];
    let buffer = "";
    child.stdout.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      const parts = buffer.split("\n");
      buffer = parts.pop() ?? "";
      lines.push(...parts.filter(Boolean));
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "raw", version: "1" } },
    });
    send({ jsonrpc: "2.0", method: "notifications/initialized" });
    send({ jsonrpc: "2.0", id: 2, method: "tools/list" });
    await waitFor("the tools/list answer", () => lines.some((line) => line.includes('"id":2')), 30_000);
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
    expect(code).toBe(0);
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ jsonrpc: "2.0" });
    const list = JSON.parse(lines.find((line) => line.includes('"id":2'))!) as {
      result: { tools: { name: string }[] };
    };
    expect(list.result.tools.map((tool) => tool.name)).toContain("calculator");
  });

  it("proxies the tools of mounted MCP servers from the config", async () => {
    const client = new Client({ name: "cli-test", version: "1" });
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...cliArgs(), "mcp"],
      cwd: workDir,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    await client.connect(transport).catch((error: unknown) => {
      throw new Error(`toolbridge mcp did not start: ${(error as Error).message}\n${stderr}`);
    });
    try {
      const names: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await client.listTools(cursor ? { cursor } : {});
        names.push(...page.tools.map((tool) => tool.name));
        cursor = page.nextCursor;
      } while (cursor);
      expect(names).toContain("calculator");
      expect(names).toContain("everything.echo");
      const result = await client.callTool({
        name: "everything.echo",
        arguments: { message: "via the CLI" },
      });
      expect(resultText(result as never)).toContain("via the CLI");
    } finally {
      await client.close();
    }
  });
});

describe("toolbridge serve", () => {
  it("refuses a non-loopback address without a token (exit 2)", async () => {
    const result = await run([...cliArgs(), "serve", "--host", "0.0.0.0", "--port", "0"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/without a token/);
  });
});

const inspectorPath = inspectorCli();
const inspector = inspectorPath as string;
describe.skipIf(!inspectorPath)(
  "MCP Inspector 2 CLI against toolbridge (needs `npm ci --prefix test/node22-tools`)",
  () => {
    let serve: ServeProcess | undefined;
    beforeAll(async () => {
      serve = await startServe([], { cwd: repo });
    });
    afterAll(() => serve?.stop());

    it("lists and calls the built-in tools over stdio (toolbridge mcp)", async () => {
      const list = await run([
        inspector,
        "--cli",
        "--method",
        "tools/list",
        "--",
        process.execPath,
        ...cliArgs(),
        "mcp",
      ]);
      expect(list.code, list.stderr).toBe(0);
      expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain(
        "calculator",
      );

      // --tool-arg takes every value after it, so the server command goes first. Each era: 2025, negotiated, 2026.
      for (const era of ["legacy", "auto", "modern"]) {
        const call = await run([
          inspector,
          "--cli",
          process.execPath,
          ...cliArgs(),
          "mcp",
          "--protocol-era",
          era,
          "--method",
          "tools/call",
          "--tool-name",
          "calculator",
          "--tool-arg",
          "expression=6*7",
        ]);
        expect(call.code, `${era}: ${call.stderr}`).toBe(0);
        expect(JSON.stringify(JSON.parse(call.stdout))).toContain("42");
      }
    });

    it("lists and calls the built-in tools over Streamable HTTP (toolbridge serve)", async () => {
      const endpoint = `${serve!.url}/mcp`;
      const list = await run([inspector, "--cli", endpoint, "--transport", "http", "--method", "tools/list"]);
      expect(list.code, list.stderr).toBe(0);
      expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toContain(
        "calculator",
      );

      for (const era of ["legacy", "auto", "modern"]) {
        const call = await run([
          inspector,
          "--cli",
          endpoint,
          "--transport",
          "http",
          "--protocol-era",
          era,
          "--method",
          "tools/call",
          "--tool-name",
          "calculator",
          "--tool-arg",
          "expression=6*7",
        ]);
        expect(call.code, `${era}: ${call.stderr}`).toBe(0);
        expect(JSON.stringify(JSON.parse(call.stdout))).toContain("42");
      }
    });
  },
);
