import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from "@modelcontextprotocol/client";
import { StdioClientTransport as StdioV2 } from "@modelcontextprotocol/client/stdio";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport as StdioV1 } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { McpApprovals } from "../../src/mcp/mcp-approvals.js";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { createBuiltinTools } from "../../src/tools/builtin/index.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";
import { createDatabase, dropDatabase, postgresUrl } from "../helpers/postgres.js";
import { startServe } from "../helpers/serve-process.js";

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
// The built bin, as users run it (test/global-setup.ts rebuilds it when a source is newer).
const cli = path.join(repo, "dist/cli/main.js");

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

type Answer = "accept" | "decline" | "cancel";
interface TestClient {
  label: string;
  /** What the person answers to the next approval question. */
  answer: Answer;
  asked: number;
  call(name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; content: unknown[] }>;
  list(): Promise<string[]>;
  close(): Promise<void>;
}

const textOf = (result: { content: unknown[] }) =>
  result.content.map((block) => (block as { text?: string }).text ?? "").join("\n");

/** A 1.x client (2025 only), or a v2 client in `auto` or pinned to 2026-07-28; each answers approvals as told. */
async function connectClient(
  kind: "v1" | "v2-auto" | "v2-2026",
  transport: "http" | "stdio",
  where: { url?: string; configDir?: string },
  elicitation = true,
): Promise<TestClient> {
  const capabilities = elicitation ? { elicitation: {} } : {};
  const stdio = {
    command: process.execPath,
    args: [cli, "mcp", "--db", path.join(where.configDir ?? repo, "stdio.db")],
    cwd: where.configDir ?? repo,
  };
  const self: Partial<TestClient> = { label: `${kind} over ${transport}`, answer: "accept", asked: 0 };
  const respond = () => {
    self.asked = (self.asked ?? 0) + 1;
    return self.answer === "accept"
      ? { action: "accept" as const, content: {} }
      : { action: self.answer as Answer };
  };
  if (kind === "v1") {
    const client = new ClientV1({ name: `approvals-${kind}`, version: "1" }, { capabilities });
    if (elicitation) client.setRequestHandler(ElicitRequestSchema, async () => respond());
    await client.connect(
      transport === "http" ? new HttpV1(new URL(where.url as string)) : new StdioV1(stdio),
    );
    self.call = async (name, args) => (await client.callTool({ name, arguments: args })) as never;
    self.list = async () => (await client.listTools()).tools.map((t) => t.name);
    self.close = () => client.close();
  } else {
    const client = new ClientV2(
      { name: `approvals-${kind}`, version: "1" },
      {
        capabilities,
        versionNegotiation: { mode: kind === "v2-auto" ? "auto" : { pin: "2026-07-28" } },
      },
    );
    if (elicitation) client.setRequestHandler("elicitation/create", async () => respond());
    await client.connect(
      transport === "http" ? new HttpV2(new URL(where.url as string)) : new StdioV2(stdio),
    );
    if (kind === "v2-2026") expect(client.getProtocolEra()).toBe("modern");
    self.call = async (name, args) => (await client.callTool({ name, arguments: args })) as never;
    self.list = async () => (await client.listTools()).tools.map((t) => t.name);
    self.close = () => client.close();
  }
  return self as TestClient;
}

let dir: string;
let server: RunningServer;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "toolbridge-mcp-approvals-"));
  await writeFile(
    path.join(dir, "toolbridge.config.json"),
    JSON.stringify({ filesystem: { roots: [dir], allowWrites: true } }),
  );
  const registry = new ToolRegistry();
  registry.registerAll(createBuiltinTools({ filesystem: { roots: [dir], allowWrites: true } }));
  server = await startServer({ registry, executor: new ToolExecutor(registry), port: 0 });
});
afterAll(async () => {
  await server?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The approval contract, the same for every client and transport. */
async function checkApprovals(client: TestClient, file: string) {
  const target = path.join(dir, file);
  expect(await client.list()).toEqual(expect.arrayContaining(["calculator", "write_file"]));
  // calculator needs no approval: no question asked.
  const sum = await client.call("calculator", { expression: "2+2" });
  expect(textOf(sum), client.label).toContain("4");
  expect(client.asked).toBe(0);

  for (const answer of ["decline", "cancel"] as const) {
    client.answer = answer;
    const refused = await client.call("write_file", { path: target, content: answer });
    expect(refused.isError, `${client.label} ${answer}`).toBe(true);
    expect(textOf(refused)).toMatch(answer === "decline" ? /declined/ : /cancelled/);
    expect(existsSync(target), `${client.label}: ran after ${answer}`).toBe(false);
  }
  client.answer = "accept";
  const written = await client.call("write_file", { path: target, content: "approved" });
  expect(written.isError, `${client.label}: ${textOf(written)}`).toBeFalsy();
  expect(await readFile(target, "utf8")).toBe("approved");
  expect(client.asked).toBe(3);
}

describe("approvals over MCP HTTP (toolbridge serve's /mcp)", () => {
  for (const kind of ["v1", "v2-auto", "v2-2026"] as const) {
    it(`${kind}: write_file runs once after accept, never after decline or cancel`, async () => {
      const client = await connectClient(kind, "http", { url: `${server.url}/mcp` });
      try {
        await checkApprovals(client, `http-${kind}.txt`);
      } finally {
        await client.close();
      }
    });
  }

  for (const kind of ["v1", "v2-2026"] as const) {
    it(`${kind} without elicitation: an isError telling a person how to allow the tool, nothing written`, async () => {
      const client = await connectClient(kind, "http", { url: `${server.url}/mcp` }, false);
      try {
        const target = path.join(dir, `no-elicitation-${kind}.txt`);
        const result = await client.call("write_file", { path: target, content: "x" });
        expect(result.isError).toBe(true);
        expect(textOf(result)).toMatch(/cannot ask one.*elicitation.*clientAsksUser.*"always"/s);
        expect(existsSync(target)).toBe(false);
      } finally {
        await client.close();
      }
    });
  }
});

describe("approvals over MCP stdio (toolbridge mcp)", () => {
  for (const kind of ["v1", "v2-auto", "v2-2026"] as const) {
    it(`${kind}: write_file runs once after accept, never after decline or cancel`, async () => {
      const client = await connectClient(kind, "stdio", { configDir: dir });
      try {
        await checkApprovals(client, `stdio-${kind}.txt`);
      } finally {
        await client.close();
      }
    });
  }

  it("a client without elicitation gets the isError explanation and nothing is written", async () => {
    const client = await connectClient("v2-2026", "stdio", { configDir: dir }, false);
    try {
      const target = path.join(dir, "stdio-no-elicitation.txt");
      const result = await client.call("write_file", { path: target, content: "x" });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(/cannot ask one/);
      expect(existsSync(target)).toBe(false);
    } finally {
      await client.close();
    }
  });
});

/** A raw 2026-07-28 `tools/call`, so the test controls `requestState` byte for byte. */
async function rawCall(
  url: string,
  id: number,
  args: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "write_file",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: {
        name: "write_file",
        arguments: args,
        _meta: {
          "io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
          "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        },
        ...extra,
      },
    }),
  });
  const text = await response.text();
  const json = text.startsWith("{")
    ? JSON.parse(text)
    : JSON.parse(
        text
          .split("\n")
          .filter((line) => line.startsWith("data: "))
          .at(-1)
          ?.slice(6) ?? "{}",
      );
  return json as {
    result?: { resultType?: string; requestState?: string; isError?: boolean; content?: { text: string }[] };
    error?: { code: number; message: string };
  };
}

const accepted = { inputResponses: { approval: { action: "accept", content: {} } } };

describe("approval state is signed, bound, expiring and single-use", () => {
  it("a replayed accepted retry runs nothing; a tampered state is -32602", async () => {
    const url = `${server.url}/mcp`;
    const target = path.join(dir, "replay.txt");
    const args = { path: target, content: "once" };
    const first = await rawCall(url, 1, args);
    expect(first.result?.resultType).toBe("input_required");
    const state = first.result?.requestState as string;

    const tampered = `${state.slice(0, -2)}${state.endsWith("AA") ? "BB" : "AA"}`;
    const bad = await rawCall(url, 2, args, { ...accepted, requestState: tampered });
    expect(bad.error?.code).toBe(-32602);
    expect(existsSync(target)).toBe(false);

    // The same state for other arguments: refused, nothing written anywhere.
    const other = await rawCall(
      url,
      3,
      { path: target, content: "other" },
      { ...accepted, requestState: state },
    );
    expect(other.error?.code).toBe(-32602);
    expect(existsSync(target)).toBe(false);

    const ok = await rawCall(url, 4, args, { ...accepted, requestState: state });
    expect(ok.result?.isError, JSON.stringify(ok)).toBeFalsy();
    expect(await readFile(target, "utf8")).toBe("once");
    await unlink(target);

    const replay = await rawCall(url, 5, args, { ...accepted, requestState: state });
    expect(replay.result?.isError).toBe(true);
    expect(replay.result?.content?.[0]?.text).toMatch(/already used/);
    expect(existsSync(target)).toBe(false);
  });

  it("an expired state is -32602 and runs nothing", async () => {
    const registry = new ToolRegistry();
    registry.registerAll(createBuiltinTools({ filesystem: { roots: [dir], allowWrites: true } }));
    const shortLived = await startServer({
      registry,
      executor: new ToolExecutor(registry),
      port: 0,
      mcp: { approvals: new McpApprovals({ ttlSeconds: 1 }) },
    });
    try {
      const url = `${shortLived.url}/mcp`;
      const target = path.join(dir, "expired.txt");
      const args = { path: target, content: "late" };
      const first = await rawCall(url, 1, args);
      // Two seconds later, by the clock the state is checked against (nobody waits for them to pass).
      vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 2_100 });
      const late = await rawCall(url, 2, args, {
        ...accepted,
        requestState: first.result?.requestState,
      }).finally(() => vi.useRealTimers());
      expect(late.error?.code).toBe(-32602);
      expect(existsSync(target)).toBe(false);
    } finally {
      await shortLived.close();
    }
  });
});

/** The database both processes share, per store: a file, and (where a server could be started) PostgreSQL. */
const sharedDatabases: Array<[string, () => Promise<string>]> = [
  ["SQLite", async () => path.join(dir, "shared.db")],
];
if (postgresUrl) sharedDatabases.push(["PostgreSQL", () => createDatabase()]);
const createdDatabases: string[] = [];
afterAll(async () => {
  for (const url of createdDatabases) await dropDatabase(url);
});

describe.each(sharedDatabases)("two serve processes on one database (%s)", (kind, makeDb) => {
  it("an approval asked by one is answered on the other, and the replay is refused by either", async () => {
    const db = await makeDb();
    if (kind === "PostgreSQL") createdDatabases.push(db);
    const a = await startServe(["--db", db], { cwd: dir });
    const b = await startServe(["--db", db], { cwd: dir });
    try {
      const target = path.join(dir, `two-instances-${kind}.txt`);
      const args = { path: target, content: "shared" };
      const first = await rawCall(`${a.url}/mcp`, 1, args);
      expect(first.result?.resultType).toBe("input_required");
      const state = first.result?.requestState;
      const done = await rawCall(`${b.url}/mcp`, 2, args, { ...accepted, requestState: state });
      expect(done.result?.isError, JSON.stringify(done)).toBeFalsy();
      expect(await readFile(target, "utf8")).toBe("shared");
      await unlink(target);
      const replay = await rawCall(`${a.url}/mcp`, 3, args, { ...accepted, requestState: state });
      expect(replay.result?.isError).toBe(true);
      expect(existsSync(target)).toBe(false);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
    }
  });
});
