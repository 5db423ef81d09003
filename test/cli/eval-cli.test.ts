import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { EvalReport } from "../../src/eval/eval-report.js";
import type { EntryResult } from "../../src/eval/run-entry.js";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { CLI_MAIN, runCli, runCliAsync } from "../helpers/run-cli.js";
import { type LlamaServer, startLlamaOpenAIServer } from "../models/helpers/llama-openai-server.js";

// `toolbridge eval` as a user runs it (the built bin): on a generated tiny GGUF, on the bundled demo model (one format
// and a sweep), and against `toolbridge serve`'s own /v1. Entries are few (--limit): the figures of full runs are in
// the README and come from scripts/eval-sweep.ts.
const dir = mkdtempSync(path.join(tmpdir(), "tb-eval-cli-"));
const tiny = path.join(dir, "tiny.gguf");
writeTestModel(tiny, { seed: 1 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = {
  TOOLBRIDGE_MODEL: "",
  TOOLBRIDGE_BASE_URL: "",
  TOOLBRIDGE_PROVIDER: "",
  TOOLBRIDGE_PROTOCOL: "",
};

function evalCli(args: string[], timeoutMs = 240_000) {
  return runCli(["eval", ...args], { cwd: dir, env, timeoutMs });
}

interface EntryLine extends EntryResult {
  type: "entry";
  variant: string;
}

function jsonLines(stdout: string): Array<{ type: string } & Record<string, unknown>> {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
}

describe("toolbridge eval", { timeout: 300_000 }, () => {
  it("on a tiny GGUF in text mode with the grammar: every call it makes parses and validates against the entry's schema", () => {
    const run = evalCli([
      "--model",
      tiny,
      "--protocol",
      "hermes",
      "--tool-choice",
      "required",
      "--category",
      "simple,multiple,live_simple,simple_java",
      "--limit",
      "3",
      "--max-tokens",
      "400",
      "--json",
    ]);
    expect(run.status, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    const entries = lines.filter((l) => l.type === "entry") as unknown as EntryLine[];
    expect(entries).toHaveLength(12);
    for (const entry of entries) {
      expect(entry.variant).toBe("hermes+grammar");
      expect(entry.callsMade, entry.id).toBeGreaterThan(0);
      expect(entry.callsReadable, entry.id).toBe(entry.callsMade);
      expect(entry.callsSchemaValid, entry.id).toBe(entry.callsMade);
      // Random weights rarely get an answer right, but what fails is its content (a value, a Java literal without its
      // `L`), never a malformed or missing call.
      if (!entry.passed)
        expect(["unparseable", "no-call", "model-error"]).not.toContain(entry.failure?.class);
    }
    const summary = lines.find((l) => l.type === "summary") as unknown as { calls: Record<string, number> };
    expect(summary.calls.schemaValid).toBe(summary.calls.made);
  });

  it("on the bundled demo model: the report end to end, text and file, and --resume continues it", () => {
    const out = path.join(dir, "demo.json");
    const args = ["--category", "simple,irrelevance,live_simple", "--limit", "2", "--out", out];
    const run = evalCli(args);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain("bundled demo model");
    expect(run.stdout).toMatch(/llama:toolbridge-demo\.gguf · hermes \(grammar\) \(as configured\)/);
    expect(run.stdout).toMatch(/simple_python\s+2\s+\d\s+\d+\.\d%/);
    expect(run.stdout).toMatch(
      /BFCL scores: non-live AST [\d.]+% · live AST [\d.]+% · irrelevance [\d.]+% · overall/,
    );
    expect(run.stdout).toMatch(/calls: \d+ made/);
    expect(run.stdout).toMatch(/time per entry: mean \d+ ms/);
    const report = JSON.parse(readFileSync(out, "utf8")) as EvalReport;
    expect(report.variants).toHaveLength(1);
    expect(report.variants[0]!.entries).toHaveLength(6);
    expect(report.variants[0]!.summary.categories.map((c) => c.category)).toEqual([
      "simple_python",
      "irrelevance",
      "live_simple",
    ]);
    expect(existsSync(`${out}.partial.jsonl`)).toBe(false);

    // An interrupted run: its journal holds the entries answered so far; --resume asks only the others.
    const kept = report.variants[0]!.entries.slice(0, 4);
    writeFileSync(
      `${out}.partial.jsonl`,
      [
        { type: "header", version: 1, settings: report.answerSettings },
        ...kept.map((result) => ({ type: "entry", variant: report.variants[0]!.key, result })),
      ]
        .map((line) => JSON.stringify(line))
        .join("\n"),
    );
    rmSync(out);
    const refused = evalCli(args);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/unfinished run.*--resume/);
    const resumed = evalCli([...args, "--resume", "--json"]);
    expect(resumed.status, resumed.stderr).toBe(0);
    const asked = jsonLines(resumed.stdout).filter((l) => l.type === "entry");
    expect(asked.map((l) => l.id)).toEqual(report.variants[0]!.entries.slice(4).map((e) => e.id));
    const again = JSON.parse(readFileSync(out, "utf8")) as EvalReport;
    expect(again.variants[0]!.entries.map((e) => e.id)).toEqual(report.variants[0]!.entries.map((e) => e.id));
    expect(again.variants[0]!.summary.passed).toBe(report.variants[0]!.summary.passed);

    // A finished report is extended: one more entry per category is asked, the rest kept.
    const extended = evalCli([
      "--category",
      "simple,irrelevance,live_simple",
      "--limit",
      "3",
      "--out",
      out,
      "--resume",
      "--json",
    ]);
    expect(extended.status, extended.stderr).toBe(0);
    expect(jsonLines(extended.stdout).filter((l) => l.type === "entry")).toHaveLength(3);
    expect((JSON.parse(readFileSync(out, "utf8")) as EvalReport).variants[0]!.entries).toHaveLength(9);

    // Other answer settings cannot be mixed into the same report.
    const mixed = evalCli([...args, "--resume", "--reask", "1"]);
    expect(mixed.status).toBe(2);
    expect(mixed.stderr).toMatch(/made with another reask/);
  });

  it("sweeps formats on the bundled demo model: the table, BFCL's spread and a recommendation written to the config", () => {
    const protocols = [
      "hermes",
      "pythonic",
      "llama3_json",
      "mistral_v3",
      "xlam",
      "qwen3_coder_xml",
      "granite",
      "gemma3_tool_code",
    ];
    const config = path.join(dir, "sweep.config.json");
    writeFileSync(config, JSON.stringify({ tools: { timeoutMs: 5000 } }));
    const out = path.join(dir, "sweep.json");
    const run = evalCli([
      "--protocol",
      protocols.join(","),
      "--category",
      "simple,irrelevance",
      "--limit",
      "2",
      "--out",
      out,
      "--recommend",
      "--config",
      config,
    ]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain("format sweep: 16 formats");
    for (const protocol of protocols) {
      expect(run.stdout).toContain(`${protocol} (grammar)`);
      expect(run.stdout).toContain(`${protocol} (no grammar)`);
    }
    expect(run.stdout).toMatch(/hermes \(grammar\) \(own\)/);
    expect(run.stdout).toMatch(/max delta [\d.]+ points · standard deviation [\d.]+ points/);
    expect(run.stdout).toMatch(
      /recommendation: (use `\w+` with(out)? the grammar: \+[\d.]+ points over the model's own format|keep the model's own format|none: in no format did the model get one of the \d+ entries whose calls are checked right)/,
    );
    const report = JSON.parse(readFileSync(out, "utf8")) as EvalReport;
    expect(report.variants).toHaveLength(16);
    expect(report.sweep?.rows).toHaveLength(16);
    expect(report.sweep?.baseline).toBe("hermes+grammar");
    const written = JSON.parse(readFileSync(config, "utf8")) as {
      tools: unknown;
      model?: Record<string, unknown>;
    };
    expect(written.tools).toEqual({ timeoutMs: 5000 });
    if (!report.sweep?.conclusive) {
      // The demo model gets no BFCL call right in any format: nothing to recommend, nothing written.
      expect(written.model).toBeUndefined();
      expect(run.stderr).toContain("no format got a call right; the config is unchanged");
    } else if (report.sweep?.best === "hermes+grammar") {
      expect(written.model).toBeUndefined();
      expect(run.stderr).toContain("config is unchanged");
    } else {
      const best = report.variants.find((v) => v.key === report.sweep?.best)!;
      expect(written.model).toMatchObject({
        provider: "llama",
        protocol: best.variant.protocol,
        nativeTools: false,
      });
      expect(written.model?.grammar).toBe(best.variant.grammar === false ? false : undefined);
    }
  });

  it("refuses bad input with a clear message and exit 2, before loading anything", () => {
    const cases: Array<[string[], RegExp]> = [
      [["--category", "simpel"], /Unknown BFCL category "simpel"/],
      [["--protocol", "hermez"], /unknown protocol "hermez"/],
      [["--protocol", "hermes", "--recommend"], /--recommend writes the winner of a format sweep/],
      [["--resume"], /--resume continues the report named by --out/],
      [["--limit", "0"], /--limit must be an integer of at least 1/],
      [["--tool-choice", "none"], /tool-choice auto .* or required/],
      [["--model", "replay:x.jsonl"], /Replay file not found|eval needs a real model/],
    ];
    for (const [args, message] of cases) {
      const run = evalCli(args, 60_000);
      expect(run.status, `${args.join(" ")}: ${run.stderr}`).toBe(2);
      expect(run.stderr).toMatch(message);
      expect(run.stdout).toBe("");
    }
  });
});

describe("toolbridge eval against toolbridge serve's own /v1", { timeout: 300_000 }, () => {
  let child: ChildProcessWithoutNullStreams | undefined;
  afterAll(() => {
    child?.kill("SIGTERM");
  });

  it("scores the served demo model through the OpenAI-compatible backend", async () => {
    child = spawn(process.execPath, [CLI_MAIN, "serve", "--port", "0", "--db", path.join(dir, "serve.db")], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: "1", ...env },
    });
    const server = child;
    const url = await new Promise<string>((resolve, reject) => {
      let stdout = "";
      let stderr = "";
      server.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        const match = /OpenAI-compatible API at (http:\/\/\S+)\/v1 /.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      server.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      server.once("exit", (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      const evaluator = spawn(
        process.execPath,
        [
          CLI_MAIN,
          "eval",
          "--base-url",
          `${url}/v1`,
          "--model-name",
          "toolbridge-demo",
          "--category",
          "simple,irrelevance,live_multiple",
          "--limit",
          "2",
          "--json",
        ],
        { cwd: dir, env: { ...process.env, NO_COLOR: "1", ...env } },
      );
      let stdout = "";
      let stderr = "";
      evaluator.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
      });
      evaluator.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
      });
      evaluator.once("exit", (status) => resolve({ status, stdout, stderr }));
    });
    expect(run.status, run.stderr).toBe(0);
    const lines = jsonLines(run.stdout);
    const entries = lines.filter((l) => l.type === "entry") as unknown as EntryLine[];
    expect(entries).toHaveLength(6);
    expect(entries.every((e) => e.variant === "configured")).toBe(true);
    // The server answered every entry (no backend failure), and its usage reached the report.
    expect(entries.filter((e) => e.failure?.class === "model-error")).toEqual([]);
    expect(entries.every((e) => (e.inputTokens ?? 0) > 0)).toBe(true);
    const summary = lines.find((l) => l.type === "summary") as unknown as { label: string; entries: number };
    expect(summary.label).toBe("native tools (as configured)");
    expect(summary.entries).toBe(6);
  });
});

/** The CLI in a child process without blocking this one (which serves the backend it talks to). */
function evalAsync(args: string[]) {
  return runCliAsync(["eval", ...args], { cwd: dir, env, timeoutMs: 300_000 });
}

describe("toolbridge eval against OpenAI-compatible chat and /v1/completions servers", {
  timeout: 300_000,
}, () => {
  let backend: LlamaServer | undefined;
  afterAll(async () => {
    await backend?.close();
  });

  it("native tools over chat (grammar-bound calls: all schema-valid), text protocols over completions (no native, no grammar variants)", async () => {
    backend = await startLlamaOpenAIServer({ modelPath: tiny });
    const chat = await evalAsync([
      "--base-url",
      backend.baseURL,
      "--model-name",
      "tiny",
      "--category",
      "simple,live_multiple",
      "--limit",
      "2",
      "--json",
    ]);
    expect(chat.status, chat.stderr).toBe(0);
    const chatEntries = jsonLines(chat.stdout).filter((l) => l.type === "entry") as unknown as EntryLine[];
    expect(chatEntries).toHaveLength(4);
    for (const entry of chatEntries) {
      expect(entry.callsMade, entry.id).toBeGreaterThan(0);
      expect(entry.callsSchemaValid, entry.id).toBe(entry.callsMade);
    }
    expect(backend.chatRequests[0]?.tools?.length).toBeGreaterThan(0);

    const completions = await evalAsync([
      "--base-url",
      backend.baseURL,
      "--api",
      "completions",
      "--chat-template",
      tiny,
      "--protocol",
      "hermes,pythonic",
      "--category",
      "simple,irrelevance",
      "--limit",
      "1",
      "--max-tokens",
      "16",
      "--json",
    ]);
    expect(completions.status, completions.stderr).toBe(0);
    const lines = jsonLines(completions.stdout);
    expect(lines.filter((l) => l.type === "summary").map((l) => l.variant)).toEqual(["hermes", "pythonic"]);
    expect(
      lines.filter((l) => l.type === "entry" && (l as unknown as EntryLine).failure?.class === "model-error"),
    ).toEqual([]);
    expect(lines.find((l) => l.type === "sweep")).toMatchObject({ rows: [{}, {}] });
    expect(backend.completionRequests.length).toBeGreaterThanOrEqual(4);
  });
});
