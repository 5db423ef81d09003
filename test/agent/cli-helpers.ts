import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

export const REPO = fileURLToPath(new URL("../../", import.meta.url));
/** The built bin (test/global-setup.ts keeps it fresh): what `toolbridge` runs for a user. */
export const CLI_MAIN = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
export const FIXTURE_TOOLS = fileURLToPath(new URL("./fixtures/append-line-tool.mjs", import.meta.url));
export const HOLD_CHILD = fileURLToPath(new URL("./fixtures/run-and-hold.mjs", import.meta.url));

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Run the built CLI in a fresh process, as a user runs `toolbridge …`. */
export function cli(args: string[], env: Record<string, string> = {}): CliResult {
  const result = spawnSync(process.execPath, [CLI_MAIN, ...args], {
    cwd: REPO,
    env: { ...process.env, ...env, NO_COLOR: "1" },
    encoding: "utf8",
    timeout: 60_000,
  });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

export function cliJson<T>(args: string[], env: Record<string, string> = {}): T {
  const result = cli(args, env);
  if (result.status !== 0)
    throw new Error(`toolbridge ${args.join(" ")} exited ${result.status}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

/** Start the hold-on-pause child, wait for `PAUSED <runId>`, SIGKILL it, and return the run id. */
export async function runUntilPausedThenKill(args: string[]): Promise<string> {
  const child = spawn(process.execPath, [HOLD_CHILD, ...args], {
    cwd: REPO,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk) => {
    err += chunk;
  });
  const runId = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`child never paused: ${err}`)), 30_000);
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = /PAUSED (\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match[1] as string);
      }
    });
    child.on("exit", (code) => reject(new Error(`child exited (${code}) before pausing: ${err}`)));
  });
  const exited = new Promise((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
  child.kill("SIGKILL");
  const signal = await exited;
  if (signal !== "SIGKILL") throw new Error(`child ended with ${String(signal)}, not SIGKILL`);
  return runId;
}
