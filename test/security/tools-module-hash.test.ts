import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CliError } from "../../src/cli/cli-error.js";
import { loadToolsModule, toolsModuleSha256 } from "../../src/cli/tools-module.js";
import { CLI_MAIN, REPO_ROOT } from "../helpers/run-cli.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "tb-tools-module-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const imports = () => (globalThis as { __tbToolsModuleImports?: number }).__tbToolsModuleImports ?? 0;
const moduleText = (tag: string) =>
  `globalThis.__tbToolsModuleImports = (globalThis.__tbToolsModuleImports ?? 0) + 1;\nexport const tools = []; // ${tag}\n`;

describe("--tools-module of a stored run", () => {
  it("is imported when unchanged and refused (exit 2, not imported) once the file has changed", async () => {
    const file = path.join(dir, "tools-a.mjs");
    writeFileSync(file, moduleText("original"));
    const hash = toolsModuleSha256(file);
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    const before = imports();
    await expect(loadToolsModule(file, hash)).resolves.toEqual([]);
    expect(imports()).toBe(before + 1);

    const changed = path.join(dir, "tools-b.mjs"); // a fresh URL, so the import cache cannot hide a second import
    writeFileSync(changed, moduleText("original"));
    writeFileSync(changed, moduleText("swapped by somebody else"));
    const error = await loadToolsModule(changed, hash).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    expect((error as CliError).message).toMatch(/has changed since this run started.*start a new run/);
    expect(imports()).toBe(before + 1);
  });

  it("reports a missing module file plainly", () => {
    expect(() => toolsModuleSha256(path.join(dir, "gone.mjs"))).toThrow(
      /Cannot read --tools-module .*gone\.mjs/,
    );
  });
});

describe("toolbridge runs resume with a changed --tools-module", { timeout: 180_000 }, () => {
  it("exits 2 with a plain message and does not import the changed file", () => {
    const defineTool = pathToFileURL(path.join(REPO_ROOT, "dist/tools/define-tool.js")).href;
    const marker = path.join(dir, "imported-the-changed-module");
    const tools = path.join(dir, "tools.mjs");
    const original = `import { defineTool } from ${JSON.stringify(defineTool)};
export const tools = [defineTool({
  name: "wipe", description: "Wipe something.", inputSchema: { type: "object" },
  annotations: { destructiveHint: true }, handler: () => "wiped",
})];
`;
    writeFileSync(tools, original);
    const turns = path.join(dir, "turns.jsonl");
    writeFileSync(
      turns,
      `${JSON.stringify({ calls: [{ name: "wipe", arguments: {} }] })}\n${JSON.stringify({ text: "Done." })}\n`,
    );
    const db = path.join(dir, "state.db");
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [CLI_MAIN, ...args], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: "1" },
        encoding: "utf8",
        timeout: 90_000,
      });

    const paused = cli([
      "run",
      "wipe it",
      "--json",
      "--model",
      `replay:${turns}`,
      "--tools-module",
      tools,
      "--db",
      db,
    ]);
    expect(paused.status, paused.stderr).toBe(0);
    const { runId, status } = JSON.parse(paused.stdout) as { runId: string; status: string };
    expect(status).toBe("paused");

    // Somebody swaps the module while the run waits for approval.
    writeFileSync(
      tools,
      `import { writeFileSync } from "node:fs";\nwriteFileSync(${JSON.stringify(marker)}, "x");\n${original}`,
    );
    const refused = cli(["runs", "approve", runId, "call_1_1", "--db", db]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/tools\.mjs has changed since this run started.*start a new run/);
    expect(existsSync(marker)).toBe(false);

    writeFileSync(tools, original); // the file it started with: accepted again
    const approved = cli(["runs", "approve", runId, "call_1_1", "--db", db]);
    expect(approved.status, approved.stderr).toBe(0);
  });
});
