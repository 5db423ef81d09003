import os from "node:os";
import path from "node:path";

/**
 * Where toolbridge keeps its database when `--db` is not given: the platform's per-user data directory.
 * Linux and other Unix: `$XDG_DATA_HOME/toolbridge` or `~/.local/share/toolbridge`; macOS:
 * `~/Library/Application Support/toolbridge`; Windows: `%LOCALAPPDATA%\toolbridge`.
 */
export function defaultDataDir(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  if (platform === "win32") {
    return path.win32.join(env.LOCALAPPDATA ?? path.win32.join(home, "AppData", "Local"), "toolbridge");
  }
  if (platform === "darwin") return path.join(home, "Library", "Application Support", "toolbridge");
  const xdg = env.XDG_DATA_HOME;
  // The XDG spec says relative values are invalid and must be ignored.
  return path.join(xdg && path.isAbsolute(xdg) ? xdg : path.join(home, ".local", "share"), "toolbridge");
}

export function defaultDbPath(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = os.homedir(),
): string {
  const dir = defaultDataDir(env, platform, home);
  return platform === "win32" ? path.win32.join(dir, "toolbridge.db") : path.join(dir, "toolbridge.db");
}
