import { spawn, spawnSync } from "node:child_process";
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

/**
 * `runCli` without blocking this process: for tests whose own servers (in this process) must keep answering while the
 * CLI runs — a blocked event loop also lets a server's keep-alive timer race a client's reuse of that socket
 * (ECONNRESET on the next request).
 */
export function runCliAsync(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string>; input?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_MAIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, NO_COLOR: "1", ...options.env },
      timeout: options.timeoutMs ?? 60_000,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(options.input ?? "");
  });
}
