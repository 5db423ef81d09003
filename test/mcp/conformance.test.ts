import { execFile } from "node:child_process";
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
const expectedFailuresFile = path.join(here, "../fixtures/mcp/conformance-expected-failures.yml");
const conformanceCli = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/conformance/package.json")),
  "dist/index.js",
);

// The groups the acceptance criteria name: every scenario in them must pass, check by check.
const MUST_PASS = /^(server-initialize|ping|tools-|logging-|dns-rebinding-protection)/;

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

let server: RunningServer;
let outputDir: string;
let run: { code: number; stdout: string };
const scenarios = new Map<string, Check[]>();

beforeAll(async () => {
  const registry = createConformanceRegistry();
  server = await startServer({ registry, executor: new ToolExecutor(registry), port: 0 });
  outputDir = await mkdtemp(path.join(tmpdir(), "toolbridge-conformance-"));
  run = await new Promise((resolve) => {
    execFile(
      process.execPath,
      [
        conformanceCli,
        "server",
        "--url",
        `${server.url}/mcp`,
        "--suite",
        "all",
        "--expected-failures",
        expectedFailuresFile,
        "-o",
        outputDir,
      ],
      { timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout }),
    );
  });
  for (const dir of await readdir(outputDir)) {
    const scenario = dir.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T.*$/, "");
    const checks = JSON.parse(await readFile(path.join(outputDir, dir, "checks.json"), "utf8")) as Check[];
    scenarios.set(scenario, checks);
  }
}, 150_000);

afterAll(async () => {
  await server?.close();
  if (outputDir) await rm(outputDir, { recursive: true, force: true });
});

describe("MCP conformance suite against toolbridge's HTTP server", () => {
  it("exits 0 with the expected-failures baseline (no regressions, no stale entries)", () => {
    expect(run.stdout).toContain("SUMMARY");
    expect(run.code, run.stdout.slice(-3000)).toBe(0);
  });

  it("passes every check of the initialize, ping, tools, logging and DNS-rebinding scenarios", () => {
    const required = [...scenarios.keys()].filter((name) => MUST_PASS.test(name));
    for (const name of [
      "server-initialize",
      "ping",
      "logging-set-level",
      "tools-list",
      "tools-call-simple-text",
      "tools-call-image",
      "tools-call-audio",
      "tools-call-embedded-resource",
      "tools-call-mixed-content",
      "tools-call-with-logging",
      "tools-call-error",
      "tools-call-with-progress",
      "tools-call-sampling",
      "tools-call-elicitation",
      "dns-rebinding-protection",
    ]) {
      expect(required).toContain(name);
    }
    for (const name of required) {
      const checks = scenarios.get(name) ?? [];
      const failed = checks.filter((check) => check.status === "FAILURE");
      expect(failed, `${name}: ${failed.map((c) => `${c.id}: ${c.errorMessage}`).join("; ")}`).toEqual([]);
      expect(
        checks.some((check) => check.status === "SUCCESS"),
        `${name} has no passing check`,
      ).toBe(true);
    }
  });

  it("fails only the scenarios listed in the expected-failures file", async () => {
    const listed = (await readFile(expectedFailuresFile, "utf8"))
      .split("\n")
      .map((line) => /^\s+-\s+(\S+)/.exec(line)?.[1])
      .filter((name): name is string => name !== undefined);
    const failing = [...scenarios]
      .filter(([, checks]) =>
        checks.some((check) => check.status === "FAILURE" || check.status === "WARNING"),
      )
      .map(([name]) => name);
    expect(failing.sort()).toEqual(listed.sort());
  });
});
