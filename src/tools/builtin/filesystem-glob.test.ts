import { describe, expect, it } from "vitest";
import { FilesystemError } from "./filesystem-errors.js";
import { createGlobMatcher } from "./filesystem-glob.js";

const matches = (pattern: string, relativePath: string, caseSensitive = false) =>
  createGlobMatcher(pattern, caseSensitive)(relativePath, relativePath.split("/").pop()!);

describe("createGlobMatcher", () => {
  it.each([
    ["*.ts", "src/main.ts", true],
    ["*.ts", "src/main.tsx", false],
    ["main.?s", "main.js", true],
    ["[abc]*.md", "b-notes.md", true],
    ["[!abc]*.md", "b-notes.md", false],
    ["[a-c]x", "bx", true],
    ["*.{md,txt}", "README.md", true],
    ["*.{md,txt}", "notes.txt", true],
    ["*.{md,txt}", "main.ts", false],
    ["src/**/*.test.ts", "src/a/b/c.test.ts", true],
    ["src/**/*.test.ts", "src/c.test.ts", true],
    ["src/**/*.test.ts", "lib/c.test.ts", false],
    ["src/*.ts", "src/a/b.ts", false],
    ["**", "any/depth/file", true],
    ["*.TS", "main.ts", true],
    ["*.(ts)", "main.(ts)", true],
    ["a+b", "a+b", true],
    ["a+b", "aab", false],
  ])("%s against %s → %s", (pattern, relativePath, expected) => {
    expect(matches(pattern, relativePath)).toBe(expected);
  });

  it("can be case-sensitive", () => {
    expect(matches("*.TS", "main.ts", true)).toBe(false);
  });

  it("stays fast on patterns that make regex engines backtrack exponentially", () => {
    const started = performance.now();
    const matcher = createGlobMatcher(`${"*a".repeat(40)}*b`, true);
    const name = "a".repeat(250);
    expect(matcher(name, name)).toBe(false);
    const deep = createGlobMatcher(`${"**/".repeat(20)}x`, true);
    expect(deep(`${"d/".repeat(60)}y`, "y")).toBe(false);
    expect(performance.now() - started).toBeLessThan(500);
  });

  it("rejects empty, over-long and brace-bomb patterns with a usable message", () => {
    expect(() => createGlobMatcher("", false)).toThrow(FilesystemError);
    expect(() => createGlobMatcher("x".repeat(501), false)).toThrow(/1–500 characters/);
    expect(() => createGlobMatcher("{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}", false)).toThrow(/too many/);
    expect(() => createGlobMatcher("{a,b", false)).toThrow(/unclosed/);
  });
});
