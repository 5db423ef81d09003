import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { fileEraVerdictStore, forgetMcpEraVerdicts } from "../../src/mcp/mcp-server-connection.js";
import {
  type MountedMcpServers,
  mountMcpServers,
  parseMcpServersConfig,
} from "../../src/mcp/mount-mcp-servers.js";
import { resultText } from "../../src/tools/normalize-tool-result.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { ToolRegistry } from "../../src/tools/tool-registry.js";

const require = createRequire(import.meta.url);
const EVERYTHING = path.join(
  path.dirname(require.resolve("@modelcontextprotocol/server-everything/package.json")),
  "dist/index.js",
);
const MODERN = path.join(
  path.dirname(fileURLToPath(import.meta.url)),
  "../fixtures/mcp/modern-only-server.mjs",
);

vi.setConfig({ testTimeout: 120_000, hookTimeout: 120_000 });

/** Mount `servers`, returning how long each took to become ready (ms) and its era. */
async function mountTimed(registry: ToolRegistry, servers: Record<string, unknown>) {
  const started = Date.now();
  const readyAt = new Map<string, number>();
  const mounted = await mountMcpServers(registry, parseMcpServersConfig(servers), {
    onStatus: (status) => {
      if (status.state === "ready" && !readyAt.has(status.name))
        readyAt.set(status.name, Date.now() - started);
    },
  });
  return { mounted, readyAt };
}

async function checkBothMounted(mounted: MountedMcpServers, registry: ToolRegistry) {
  const byName = Object.fromEntries(mounted.status().map((status) => [status.name, status]));
  expect(byName.legacy?.state, byName.legacy?.lastError).toBe("ready");
  expect(byName.modern?.state, byName.modern?.lastError).toBe("ready");
  expect(byName.legacy?.era).toBe("legacy");
  expect(byName.modern?.era).toBe("modern");
  const executor = new ToolExecutor(registry);
  expect(resultText(await executor.call("legacy.get-sum", { a: 19, b: 23 }))).toMatch(/42/);
  expect(resultText(await executor.call("modern.reverse", { text: "abc" }))).toBe("cba");
  return byName;
}

/** A free TCP port for server-everything's HTTP mode, which takes its port from PORT only. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function waitForOutput(child: ChildProcessWithoutNullStreams, pattern: RegExp): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let seen = "";
    const onData = (chunk: Buffer) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) resolve(match);
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited with ${code}: ${seen}`)));
  });
}

describe("mounting a 2025-era and a 2026-era server side by side", () => {
  afterAll(() => forgetMcpEraVerdicts());

  it("over stdio: both eras mount and answer; the second start reuses the era verdict (no probe)", async () => {
    forgetMcpEraVerdicts();
    const servers = {
      legacy: { command: process.execPath, args: [EVERYTHING] },
      modern: { command: process.execPath, args: [MODERN, "stdio"] },
    };
    const first = await mountTimed(new ToolRegistry(), servers);
    const registry = new ToolRegistry();
    await first.mounted.close();
    const second = await mountTimed(registry, servers);
    try {
      const status = await checkBothMounted(second.mounted, registry);
      expect(status.legacy?.eraCached).toBe(true);
      expect(status.modern?.eraCached).toBe(true);
      process.stderr.write(
        `mount connect times over stdio (first → second start): legacy ${first.readyAt.get("legacy")} → ${second.readyAt.get("legacy")} ms, modern ${first.readyAt.get("modern")} → ${second.readyAt.get("modern")} ms\n`,
      );
    } finally {
      await second.mounted.close();
    }
  });

  it("keeps verdicts in a file for the next process, and re-negotiates when a remembered era no longer works", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), "toolbridge-eras-"));
    try {
      const file = path.join(dir, "mcp-eras.json");
      const servers = {
        legacy: { command: process.execPath, args: [EVERYTHING] },
        modern: { command: process.execPath, args: [MODERN, "stdio"] },
      };
      const first = await mountMcpServers(new ToolRegistry(), parseMcpServersConfig(servers), {
        eraVerdicts: fileEraVerdictStore(file),
      });
      await first.close();
      const saved = JSON.parse(await readFile(file, "utf8")) as Record<string, { kind: string }>;
      expect(
        Object.values(saved)
          .map((verdict) => verdict.kind)
          .sort(),
      ).toEqual(["legacy", "modern"]);

      // A "new process" (a fresh store on the same file) whose remembered verdict for the modern server is wrong.
      const modernKey = Object.keys(saved).find((key) => saved[key]?.kind === "modern") as string;
      await writeFile(file, JSON.stringify({ ...saved, [modernKey]: { kind: "legacy" } }));
      const registry = new ToolRegistry();
      const second = await mountMcpServers(registry, parseMcpServersConfig(servers), {
        eraVerdicts: fileEraVerdictStore(file),
      });
      try {
        const status = await checkBothMounted(second, registry);
        expect(status.legacy?.eraCached).toBe(true);
        expect(status.modern?.eraCached).toBe(false);
        const fixed = JSON.parse(await readFile(file, "utf8")) as Record<string, { kind: string }>;
        expect(fixed[modernKey]?.kind).toBe("modern");
      } finally {
        await second.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  describe("over Streamable HTTP", () => {
    const children: ChildProcessWithoutNullStreams[] = [];
    let legacyUrl: string;
    let modernUrl: string;
    beforeAll(async () => {
      const port = await freePort();
      const legacy = spawn(process.execPath, [EVERYTHING, "streamableHttp"], {
        env: { ...process.env, PORT: String(port) },
      });
      const modern = spawn(process.execPath, [MODERN, "http"]);
      children.push(legacy, modern);
      await waitForOutput(legacy, /listening on port/i);
      legacyUrl = `http://127.0.0.1:${port}/mcp`;
      modernUrl = (await waitForOutput(modern, /(http:\/\/\S+\/mcp)/))[1] as string;
    });
    afterAll(() => {
      for (const child of children) child.kill("SIGTERM");
    });

    it("both eras mount and answer; the second start reuses the era verdict", async () => {
      forgetMcpEraVerdicts();
      const servers = { legacy: { url: legacyUrl }, modern: { url: modernUrl } };
      const first = await mountTimed(new ToolRegistry(), servers);
      await first.mounted.close();
      const registry = new ToolRegistry();
      const second = await mountTimed(registry, servers);
      try {
        const status = await checkBothMounted(second.mounted, registry);
        expect(status.legacy?.eraCached).toBe(true);
        expect(status.modern?.eraCached).toBe(true);
        process.stderr.write(
          `mount connect times over HTTP (first → second start): legacy ${first.readyAt.get("legacy")} → ${second.readyAt.get("legacy")} ms, modern ${first.readyAt.get("modern")} → ${second.readyAt.get("modern")} ms\n`,
        );
      } finally {
        await second.mounted.close();
      }
    });
  });
});
