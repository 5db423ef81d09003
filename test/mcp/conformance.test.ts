import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/server/start-server.js";
import { ToolExecutor } from "../../src/tools/tool-executor.js";
import { createConformanceRegistry } from "../fixtures/mcp/conformance-registry.js";

const here = path.dirname(fileURLToPath(import.meta.url));
/**
 * The suite lives in test/node22-tools (it needs Node 22+, and installing it with the project would make `npm ci` on
 * Node 20 warn): `npm ci --prefix test/node22-tools`, as .ci/run's Node 24 leg does.
 */
function conformanceCliPath(): string | undefined {
  try {
    const tools = createRequire(path.join(here, "../node22-tools/package.json"));
    return path.join(
      path.dirname(tools.resolve("@modelcontextprotocol/conformance/package.json")),
      "dist/index.js",
    );
  } catch {
    return undefined;
  }
}
const conformanceCli = conformanceCliPath() as string;

/**
 * The conformance suite 0.2 needs Node 22+ (`fs.globSync`). On Node 20 it runs with the binary named by
 * TOOLBRIDGE_CONFORMANCE_NODE (`.ci/run` installs Node 24 from the npm registry for its second leg and runs this
 * file there); without one, or without test/node22-tools installed, this file is skipped, saying why.
 */
function conformanceNode(): string | undefined {
  const candidates = [process.env.TOOLBRIDGE_CONFORMANCE_NODE, process.execPath].filter(
    (file): file is string => !!file,
  );
  for (const node of candidates) {
    try {
      const major = Number(
        execFileSync(node, ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" }),
      );
      if (major >= 22) return node;
    } catch {
      // Not runnable: try the next one.
    }
  }
  return undefined;
}
const node = conformanceNode();

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

let server: RunningServer;
beforeAll(async () => {
  if (!node || !conformanceCliPath()) return;
  const registry = createConformanceRegistry();
  server = await startServer({ registry, executor: new ToolExecutor(registry), port: 0 });
});
afterAll(async () => {
  await server?.close();
});

async function runSuite(revision: string) {
  const expectedFailuresFile = path.join(
    here,
    `../fixtures/mcp/conformance-expected-failures-${revision}.yml`,
  );
  const outputDir = await mkdtemp(path.join(tmpdir(), "toolbridge-conformance-"));
  try {
    const run = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        node as string,
        [
          conformanceCli,
          "server",
          "--url",
          `${server.url}/mcp`,
          "--requirements",
          revision,
          "--expected-failures",
          expectedFailuresFile,
          "-o",
          outputDir,
        ],
        { timeout: 240_000, maxBuffer: 16 * 1024 * 1024 },
        (error, stdout) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
      );
    });
    const scenarios = new Map<string, Check[]>();
    for (const dir of await readdir(outputDir)) {
      const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
      scenarios.set(scenario, JSON.parse(await readFile(path.join(outputDir, dir, "checks.json"), "utf8")));
    }
    const listed = (await readFile(expectedFailuresFile, "utf8"))
      .split("\n")
      .map((line) => /^\s+-\s+(\S+)/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);
    return { run, scenarios, listed };
  } finally {
    await rm(outputDir, { recursive: true, force: true });
  }
}

const failedChecks = (checks: Check[]) =>
  checks.filter((check) => check.status === "FAILURE").map((check) => `${check.id}: ${check.errorMessage}`);

describe.skipIf(!node || !conformanceCliPath())(
  "MCP conformance 0.2 against toolbridge's HTTP server (needs Node 22+ and `npm ci --prefix test/node22-tools`)",
  () => {
    it("2025-11-25: exits 0 with its baseline, which lists only resources, prompts and completion", async () => {
      const { run, scenarios, listed } = await runSuite("2025-11-25");
      expect(run.code, run.stdout.slice(-3000)).toBe(0);
      expect(listed.filter((name) => !/^(resources-|prompts-|completion-)/.test(name))).toEqual([]);
      for (const name of [
        "server-initialize",
        "ping",
        "logging-set-level",
        "tools-call-elicitation",
        "tools-call-sampling",
      ]) {
        expect(failedChecks(scenarios.get(name) ?? [{ id: "missing", status: "FAILURE" }]), name).toEqual([]);
      }
    }, 300_000);

    it("2026-07-28: exits 0 with its baseline, which lists only resources, prompts, completion and their cache hints", async () => {
      const { run, scenarios, listed } = await runSuite("2026-07-28");
      expect(run.code, run.stdout.slice(-3000)).toBe(0);
      // caching, sep-2164 and non-tool-request fail only on their prompts/resources parts (reasons in the file).
      const offeredNot =
        /^(resources-|prompts-|completion-|caching$|sep-2164-resource-not-found$|input-required-result-non-tool-request$)/;
      expect(listed.filter((name) => !offeredNot.test(name))).toEqual([]);
      for (const name of [
        "server-stateless",
        "tools-list",
        "tools-call-simple-text",
        "dns-rebinding-protection",
      ]) {
        expect(failedChecks(scenarios.get(name) ?? [{ id: "missing", status: "FAILURE" }]), name).toEqual([]);
      }
      // The tools/list cache hints pass even though the scenario fails on prompts/resources.
      const caching = scenarios.get("caching") ?? [];
      expect(failedChecks(caching).filter((line) => line.includes("tools-list"))).toEqual([]);
    }, 300_000);
  },
);
