import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { AnyToolDefinition } from "../tools/tool-definition.js";
import { CliError } from "./cli-error.js";

/** The shape defineTool returns, as far as the registry relies on it. */
function isToolDefinition(value: unknown): value is AnyToolDefinition {
  if (value === null || typeof value !== "object") return false;
  const { tool, handler } = value as { tool?: { name?: unknown }; handler?: unknown };
  return (
    typeof tool === "object" &&
    tool !== null &&
    typeof tool.name === "string" &&
    typeof handler === "function"
  );
}

/**
 * `--tools-module <file>`: an ES module exporting `tools` (an array of tool definitions) or a default function
 * returning one. Meant for test fixtures and local custom tools; the tools join the configured ones.
 */
export async function loadToolsModule(file: string, expectedSha256?: string): Promise<AnyToolDefinition[]> {
  // A stored run names the module by path, and resuming imports (runs) it: a file changed since the run started is
  // refused rather than run under the run's old approvals.
  if (expectedSha256 !== undefined && toolsModuleSha256(file) !== expectedSha256) {
    throw new CliError(
      `--tools-module ${file} has changed since this run started (its SHA-256 differs), so it is not imported. Restore the file the run was started with, or start a new run.`,
      2,
    );
  }
  let mod: { tools?: unknown; default?: unknown };
  try {
    mod = (await import(pathToFileURL(path.resolve(file)).href)) as typeof mod;
  } catch (error) {
    throw new CliError(`Cannot load --tools-module ${file}: ${(error as Error).message}`);
  }
  const tools = typeof mod.default === "function" ? await (mod.default as () => unknown)() : mod.tools;
  const expected =
    'export "tools", an array of defineTool({ name, description, inputSchema, handler }) results (defineTool comes from "toolbridge"), or a default function returning one';
  if (!Array.isArray(tools)) throw new CliError(`--tools-module ${file} must ${expected}.`);
  // Plain objects would fail deep inside the registry with a TypeError; say what is wrong with which entry instead.
  tools.forEach((entry: unknown, i) => {
    if (!isToolDefinition(entry)) {
      const what =
        entry !== null && typeof entry === "object" && "name" in entry
          ? `a plain object ("${String((entry as { name: unknown }).name)}"), not a defineTool(...) result`
          : `${entry === null ? "null" : typeof entry}, not a defineTool(...) result`;
      throw new CliError(`--tools-module ${file}: tools[${i}] is ${what}. The module must ${expected}.`);
    }
  });
  return tools as AnyToolDefinition[];
}

/** The SHA-256 (hex) of a tools module file; a clear error when it cannot be read. */
export function toolsModuleSha256(file: string): string {
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch (error) {
    throw new CliError(`Cannot read --tools-module ${file}: ${(error as NodeJS.ErrnoException).message}`, 2);
  }
}
