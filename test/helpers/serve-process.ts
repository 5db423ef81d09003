import { type ChildProcess, spawn } from "node:child_process";
import { CLI_MAIN, REPO_ROOT } from "./run-cli.js";

export interface ServeProcess {
  /** The server's own URL (`http://127.0.0.1:<port>`): `/api`, `/v1`, `/mcp` and the web UI are under it. */
  url: string;
  port: number;
  /** The WebSocket API's URL (`ws://…/ws`). */
  ws: string;
  child: ChildProcess;
  /** Everything it printed so far, stdout and stderr together. */
  output(): string;
  stop(): Promise<void>;
}

/** Serves started by a test file and not yet stopped: `stopAllServes()` in an afterAll ends them. */
const running = new Set<ServeProcess>();

/**
 * `toolbridge serve --port 0 …` from the built bin, as a user starts it — the one way tests start a serve process.
 * Resolves once the banner has named every route (its URL is read from it); rejects with everything it printed when it
 * exits first or does not start in 60 s. The caller passes --db, --tools-module, the environment (TOOLBRIDGE_MODEL …)
 * and a cwd.
 */
export function startServe(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; port?: number } = {},
): Promise<ServeProcess> {
  const child = spawn(process.execPath, [CLI_MAIN, "serve", "--port", String(options.port ?? 0), ...args], {
    cwd: options.cwd ?? REPO_ROOT,
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
      // The first line's "on <url> " names the server; the banner ends with the MCP endpoint.
      const match = /toolbridge serving .*? on (http:\/\/\S+) /.exec(out);
      if (!match?.[1] || !/\/mcp\n/.test(out)) return;
      clearTimeout(timer);
      child.stdout?.off("data", onData);
      const url = match[1];
      const serve: ServeProcess = {
        url,
        port: Number(new URL(url).port),
        ws: `${url.replace(/^http/, "ws")}/ws`,
        child,
        output: () => out,
        stop: () =>
          new Promise<void>((done) => {
            running.delete(serve);
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once("exit", () => done());
            child.kill("SIGTERM");
          }),
      };
      running.add(serve);
      resolve(serve);
    };
    child.stdout?.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited (${code}) before it started:\n${out}`));
    });
  });
}

/** Stop every serve this file started and has not stopped (for an afterAll). */
export async function stopAllServes(): Promise<void> {
  await Promise.all([...running].map((serve) => serve.stop()));
}
