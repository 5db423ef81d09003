import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "./load-config.js";

function dirWith(config: unknown): string {
  const dir = mkdtempSync(path.join(tmpdir(), "tb-config-"));
  writeFileSync(
    path.join(dir, "toolbridge.config.json"),
    typeof config === "string" ? config : JSON.stringify(config),
  );
  return dir;
}

describe("loadConfig", () => {
  it("uses defaults when there is no config file", () => {
    const dir = mkdtempSync(path.join(tmpdir(), "tb-config-"));
    expect(loadConfig({ cwd: dir })).toEqual({ config: {}, file: undefined });
  });

  it("reads toolbridge.config.json and resolves roots against the file's folder", () => {
    const dir = dirWith({ filesystem: { roots: ["docs", "/abs"] }, tools: { deny: ["roll_dice"] } });
    const { config, file } = loadConfig({ cwd: dir });
    expect(file).toBe(path.join(dir, "toolbridge.config.json"));
    expect(config.filesystem).toEqual({ roots: [path.join(dir, "docs"), "/abs"], allowWrites: false });
    expect(config.tools?.deny).toEqual(["roll_dice"]);
  });

  it("reports every problem with its path, including typos in keys", () => {
    const dir = dirWith({
      filesytem: {},
      filesystem: { roots: [1], allowWrites: "yes" },
      tools: { allow: "x" },
    });
    let message = "";
    try {
      loadConfig({ cwd: dir });
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      message = (error as Error).message;
    }
    expect(message).toContain("unknown key `filesytem`");
    expect(message).toContain("`filesystem.roots[0]`");
    expect(message).toContain("`filesystem.allowWrites`");
    expect(message).toContain("`tools.allow`");
  });

  it("rejects invalid JSON and a missing --config file clearly", () => {
    expect(() => loadConfig({ cwd: dirWith("{ nope") })).toThrow(/is not valid JSON/);
    expect(() => loadConfig({ configPath: "/does/not/exist.json" })).toThrow(
      "Config file not found: /does/not/exist.json",
    );
  });
});
