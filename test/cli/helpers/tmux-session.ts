import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A program running in a real pseudo-terminal, driven the way a person would: tmux on a private socket (so no user
 * tmux server is touched), keys sent with send-keys, the screen read back with capture-pane.
 */
/** Printed by the wrapping shell after the program ends: `[toolbridge-test exit <code>]`. */
const EXIT_MARKER = "[toolbridge-test exit ";

export class TmuxSession {
  readonly #dir: string;
  readonly #socket: string;
  readonly #target = "chat";

  private constructor() {
    this.#dir = mkdtempSync(path.join(tmpdir(), "tb-tmux-"));
    this.#socket = path.join(this.#dir, "socket");
  }

  static isAvailable(): boolean {
    return spawnSync("tmux", ["-V"], { encoding: "utf8" }).status === 0;
  }

  static start(
    argv: readonly string[],
    options: { cwd: string; env?: Record<string, string>; width?: number; height?: number },
  ): TmuxSession {
    const session = new TmuxSession();
    const env = { ...process.env, ...options.env };
    // The server is started by this first command and inherits `env`; `-f /dev/null` ignores any user config.
    session.#tmux(
      [
        "-f",
        "/dev/null",
        "new-session",
        "-d",
        "-s",
        session.#target,
        "-x",
        String(options.width ?? 200),
        "-y",
        String(options.height ?? 50),
        "-c",
        options.cwd,
        // A shell runs the program and prints how it ended: tmux's own pane_dead_status is not always recorded
        // (the pane can close before the program is reaped), so the exit code is read from the screen instead.
        "sh",
        "-c",
        `"$@"; printf '\\n${EXIT_MARKER}%s]\\n' "$?"; exec sleep 600`,
        "sh",
        ...argv,
      ],
      env,
    );
    return session;
  }

  #tmux(args: readonly string[], env: NodeJS.ProcessEnv = process.env): string {
    const result = spawnSync("tmux", ["-S", this.#socket, ...args], { encoding: "utf8", env });
    if (result.status !== 0) throw new Error(`tmux ${args[0]} failed: ${result.stderr}`);
    return result.stdout;
  }

  /** The screen and its scrollback, as plain text. */
  screen(): string {
    return this.#tmux(["capture-pane", "-p", "-J", "-S", "-200", "-t", this.#target]);
  }

  /** Type text literally (no key names), without pressing Enter. */
  type(text: string): void {
    this.#tmux(["send-keys", "-t", this.#target, "-l", text]);
  }

  press(...keys: string[]): void {
    this.#tmux(["send-keys", "-t", this.#target, ...keys]);
  }

  /** Poll the screen until `pattern` shows up; fail with the screen when it does not in time. */
  async waitFor(pattern: RegExp, timeoutMs = 30_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${pattern} on screen:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The program's exit status once it has exited, else undefined. */
  /** The program's exit code once it has ended, from the marker the wrapping shell prints. */
  exitStatus(): number | undefined {
    const match = new RegExp(`${EXIT_MARKER.replace(/[[\]]/g, "\\$&")}(\\d+)\\]`).exec(this.screen());
    return match ? Number(match[1]) : undefined;
  }

  async waitForExit(timeoutMs = 15_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = this.exitStatus();
      if (status !== undefined) return status;
      if (Date.now() > deadline) throw new Error(`the program did not exit; screen:\n${this.screen()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  close(): void {
    spawnSync("tmux", ["-S", this.#socket, "kill-server"]);
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
