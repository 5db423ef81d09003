import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CliError } from "../../src/cli/cli-error.js";
import { loadToolsModule, toolsModuleSha256 } from "../../src/cli/commands/run.js";

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
