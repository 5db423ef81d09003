import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Tool } from "@modelcontextprotocol/server";
import { afterAll, describe, expect, it } from "vitest";
import { writeTestModel } from "../../src/models/gguf/make-test-model.js";
import { SqliteStore } from "../../src/store/sqlite-store.js";
import { createMemoryTools } from "../../src/tools/builtin/memory.js";
import { validateToolInput } from "../../src/tools/validate-tool-input.js";
import { runCli } from "../helpers/run-cli.js";

// The issue's own command line, with every tool a bare `toolbridge run` offers (a long catalogue for a byte-level
// tiny model, and schemas with numeric bounds), so what a user types is what is checked. The 50-seed sweep runs
// in-process in test/models/llama-tool-choice.test.ts; this covers the CLI path end to end.
const dir = mkdtempSync(path.join(tmpdir(), "tb-run-gguf-"));
const modelPath = path.join(dir, "tiny.gguf");
writeTestModel(modelPath, { seed: 3 });
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface RunJson {
  status: string;
  stopReason: string;
  steps: Array<{ calls: Array<{ name: string; arguments: Record<string, unknown> }> }>;
}

describe("toolbridge run --model <tiny.gguf> --tool-choice required", { timeout: 300_000 }, () => {
  const offered = new Map<string, Tool>();

  it.each(["--no-native-tools", "--native-tools"])(
    "makes a schema-valid call for every seed (%s)",
    (mode) => {
      if (offered.size === 0) {
        const list = runCli(["tools", "list", "--json"], { cwd: dir });
        for (const tool of (JSON.parse(list.stdout) as { tools: Tool[] }).tools) offered.set(tool.name, tool);
        // `run` also offers the memory tools, which need its store.
        const store = new SqliteStore(path.join(dir, "schemas.db"));
        for (const definition of createMemoryTools(store)) offered.set(definition.tool.name, definition.tool);
        store.close();
      }
      const problems: string[] = [];
      for (const seed of [1, 2, 3, 4, 5]) {
        const run = runCli(
          [
            "run",
            "What is 15% of 47.50?",
            "--model",
            modelPath,
            "--tool-choice",
            "required",
            "--seed",
            String(seed),
          ].concat(["--max-steps", "1", "--json", "--db", path.join(dir, `runs-${seed}.db`), mode]),
          { cwd: dir },
        );
        const result = JSON.parse(run.stdout) as RunJson;
        const call = result.steps[0]?.calls[0];
        if (!call) {
          problems.push(`seed ${seed}: no call (${result.stopReason}) ${run.stderr.slice(-300)}`);
          continue;
        }
        const tool = offered.get(call.name);
        const check = tool
          ? validateToolInput(tool, call.arguments)
          : { ok: false as const, issues: ["unknown tool"] };
        if (!check.ok)
          problems.push(`seed ${seed}: ${call.name} ${JSON.stringify(call.arguments)}: ${check.issues}`);
      }
      expect(problems).toEqual([]);
    },
  );
});
