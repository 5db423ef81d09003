import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { REPO } from "./browser.js";

export const CLI_MAIN = `${REPO}dist/cli/main.js`;

export interface ServeProcess {
  url: string;
  port: number;
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/**
 * `toolbridge serve` from the built bin, as a user starts it: resolves once the banner names its URL. The caller
 * passes --db, --tools-module, environment (TOOLBRIDGE_MODEL …) and a cwd.
 */
export function startServe(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; port?: number } = { cwd: REPO },
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI_MAIN, "serve", "--port", String(options.port ?? 0), ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start in 60 s:\n${out}`)), 60_000);
    const onData = () => {
      const match = /Web UI[^\n]*?(http:\/\/[^\s]+)\/\n/.exec(out);
      if (!match?.[1] || !/\/mcp\n/.test(out)) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      const url = match[1];
      resolve({
        url,
        port: Number(new URL(url).port),
        child,
        output: () => out,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      });
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before it started:\n${out}`));
    });
  });
}

/** `toolbridge …` (the built bin), waited for; its output and exit code. */
export function runToolbridge(
  args: string[],
  options: { cwd: string; env?: Record<string, string> },
): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [CLI_MAIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    encoding: "utf8",
    timeout: 90_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
