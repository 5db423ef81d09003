import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
/** The built bin (test/global-setup.ts keeps it fresh): what `toolbridge` runs for a user. */
export const CLI_MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Run `toolbridge …` in a fresh process, the way a user runs the bin: real argv, real stdio, real exit code.
 * `input` is written to stdin.
 */
export function runCli(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string; timeoutMs?: number } = {},
): CliRun {
  const result = spawnSync(process.execPath, [CLI_MAIN, ...args], {
    cwd: options.cwd ?? REPO_ROOT,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    input: options.input ?? "",
    encoding: "utf8",
    timeout: options.timeoutMs ?? 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
