import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FilesystemRoot, prepareRoots, resolveConfinedPath } from "./filesystem-confined-path.js";
import { HandleScope } from "./filesystem-directory-handle.js";
import { createGlobMatcher } from "./filesystem-glob.js";
import { openConfinedDirectory } from "./filesystem-safe-io.js";
import { type SearchFilesOptions, searchFiles } from "./filesystem-search.js";

let base: string;
let root: string;
let roots: FilesystemRoot[];
let scope: HandleScope;

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), "tb-search-"));
  root = path.join(base, "root");
  mkdirSync(path.join(root, "a", "b", "c"), { recursive: true });
  mkdirSync(path.join(base, "outside"));
  writeFileSync(path.join(base, "outside", "found-me.txt"), "needle outside");
  writeFileSync(path.join(root, "top.txt"), "needle at top\nsecond needle line\n");
  writeFileSync(path.join(root, "a", "b", "c", "deep.txt"), "needle deep\n");
  writeFileSync(path.join(root, "a", "blob.bin"), Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0x00]));
  symlinkSync(path.join(base, "outside"), path.join(root, "out"));
  symlinkSync(".", path.join(root, "cycle"));
  roots = prepareRoots([root]);
  scope = new HandleScope();
});

afterEach(async () => {
  await scope.close();
  rmSync(base, { recursive: true, force: true });
});

async function search(overrides: Partial<SearchFilesOptions>) {
  return searchFiles({
    roots,
    starts: [await openConfinedDirectory(scope, await resolveConfinedPath(scope, roots, ".", "existing"))],
    scope,
    caseSensitive: false,
    maxResults: 100,
    maxDepth: 10,
    maxFileBytes: 1024,
    maxEntries: 10_000,
    signal: new AbortController().signal,
    ...overrides,
  });
}

describe("searchFiles", () => {
  it("finds content per line, skips binaries, and never enters symlinked directories", async () => {
    const result = await search({ contains: "needle" });
    expect(result.matches.map((match) => `${path.relative(root, match.path)}:${match.line}`)).toEqual([
      "top.txt:1",
      "top.txt:2",
      "a/b/c/deep.txt:1",
    ]);
    expect(result.skippedBinaryFiles).toBe(1);
    expect(result.skippedSymlinks).toBe(2);
  });

  it("lists symlinks by name without following them", async () => {
    const result = await search({ nameMatcher: createGlobMatcher("*", false) });
    const names = result.matches.map((match) => path.relative(root, match.path));
    expect(names).toContain("out");
    expect(names).toContain("cycle");
    expect(names.some((name) => name.includes("found-me"))).toBe(false);
    expect(names.some((name) => name.startsWith("cycle/"))).toBe(false);
  });

  it("respects maxDepth, maxResults, maxEntries and abort", async () => {
    const shallow = await search({ contains: "needle", maxDepth: 2 });
    expect(shallow.matches.every((match) => !match.path.includes("deep.txt"))).toBe(true);
    expect(shallow.depthLimited).toBe(1);
    const few = await search({ contains: "needle", maxResults: 1 });
    expect(few.matches).toHaveLength(1);
    expect(few.stoppedBecause).toBe("max-results");
    expect((await search({ nameMatcher: createGlobMatcher("*", false), maxEntries: 2 })).stoppedBecause).toBe(
      "max-entries",
    );
    const controller = new AbortController();
    controller.abort(new Error("stop"));
    await expect(search({ contains: "needle", signal: controller.signal })).rejects.toThrow("stop");
  });
});
