import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { resultText } from "../normalize-tool-result.js";
import { ToolExecutor } from "../tool-executor.js";
import { ToolRegistry } from "../tool-registry.js";
import { createFilesystemTools, type FilesystemToolsOptions } from "./filesystem.js";
import { FilesystemConfigError, FilesystemError } from "./filesystem-errors.js";

let base: string;
let root: string;

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), "tb-fs-"));
  root = path.join(base, "root");
  mkdirSync(path.join(root, "src", "deep"), { recursive: true });
  writeFileSync(path.join(root, "notes.txt"), "alpha\nbeta\ngamma\ndelta\n");
  writeFileSync(path.join(root, "src", "main.ts"), 'export const greeting = "hello";\n');
  writeFileSync(path.join(root, "src", "deep", "util.test.ts"), "it('works', () => {});\n");
  writeFileSync(
    path.join(root, "image.png"),
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]),
  );
});

afterEach(() => {
  rmSync(base, { recursive: true, force: true });
});

function setup(options: Partial<FilesystemToolsOptions> = {}) {
  const registry = new ToolRegistry();
  registry.registerAll(createFilesystemTools({ roots: [root], ...options }));
  const executor = new ToolExecutor(registry, { redact: false });
  const call = (name: string, args: unknown) => executor.call(name, args);
  return { registry, call };
}

function ok(result: CallToolResult): string {
  expect(result.isError, resultText(result)).toBeFalsy();
  return resultText(result);
}

function failed(result: CallToolResult): string {
  expect(result.isError, resultText(result)).toBe(true);
  return resultText(result);
}

describe("createFilesystemTools", () => {
  it("offers only read tools unless writes are allowed, and marks them read-only", () => {
    const { registry } = setup();
    const names = registry.list().tools.map((tool) => tool.name);
    expect(names.sort()).toEqual([
      "file_info",
      "list_allowed_directories",
      "list_directory",
      "read_file",
      "search_files",
    ]);
    for (const name of names) {
      const definition = registry.get(name)!;
      expect(definition.tool.annotations?.readOnlyHint).toBe(true);
      expect(definition.requiresApproval).toBe(false);
      expect(definition.category).toBe("filesystem");
    }
  });

  it("adds write tools that are destructive and always need approval", () => {
    const { registry } = setup({ allowWrites: true });
    for (const name of ["write_file", "edit_file", "move_file", "delete_file"]) {
      const definition = registry.get(name)!;
      expect(definition.tool.annotations?.destructiveHint).toBe(true);
      expect(definition.tool.annotations?.readOnlyHint).toBe(false);
      expect(definition.requiresApproval).toBe(true);
      expect(definition.hasSideEffects).toBe(true);
    }
  });

  it("rejects a root that does not exist, a root that is a file, and no roots at all", () => {
    expect(() => createFilesystemTools({ roots: [path.join(base, "missing")] })).toThrow(/does not exist/);
    expect(() => createFilesystemTools({ roots: [path.join(root, "notes.txt")] })).toThrow(/not a directory/);
    expect(() => createFilesystemTools({ roots: [] })).toThrow(FilesystemConfigError);
    expect(() => createFilesystemTools({ roots: [root], maxReadBytes: 0 })).toThrow(/maxReadBytes/);
  });

  it("accepts a root given through a symlink and reports its real path", async () => {
    symlinkSync(root, path.join(base, "root-link"));
    const registry = new ToolRegistry();
    registry.registerAll(createFilesystemTools({ roots: [path.join(base, "root-link")] }));
    const executor = new ToolExecutor(registry, { redact: false });
    expect(ok(await executor.call("list_allowed_directories", {}))).toContain(root);
    expect(
      ok(await executor.call("read_file", { path: path.join(base, "root-link", "notes.txt") })),
    ).toContain("beta");
  });
});

describe("read tools", () => {
  it("lists a directory with types and sizes, defaulting to the first root", async () => {
    const { call } = setup();
    const text = ok(await call("list_directory", {}));
    expect(text).toContain("[DIR]  src/");
    expect(text).toContain("[FILE] notes.txt (23 B)");
    expect(ok(await call("list_directory", { path: "src" }))).toContain("[DIR]  deep/");
    expect(failed(await call("list_directory", { path: "notes.txt" }))).toMatch(/not a directory/);
  });

  it("reads text whole, by head, tail and line range", async () => {
    const { call } = setup();
    expect(ok(await call("read_file", { path: "notes.txt" }))).toBe("alpha\nbeta\ngamma\ndelta\n");
    expect(ok(await call("read_file", { path: "notes.txt", head: 2 }))).toBe("alpha\nbeta");
    expect(ok(await call("read_file", { path: "notes.txt", tail: 1 }))).toBe("delta");
    expect(ok(await call("read_file", { path: "notes.txt", startLine: 2, endLine: 3 }))).toBe("beta\ngamma");
    expect(ok(await call("read_file", { path: path.join(root, "src", "main.ts") }))).toContain("greeting");
    expect(failed(await call("read_file", { path: "notes.txt", startLine: 9 }))).toMatch(/has 4 lines/);
    expect(failed(await call("read_file", { path: "notes.txt", head: 1, tail: 1 }))).toMatch(/only one of/);
  });

  it("refuses binary files and directories with a clear message", async () => {
    const { call } = setup();
    expect(failed(await call("read_file", { path: "image.png" }))).toMatch(/binary file/);
    expect(failed(await call("read_file", { path: "src" }))).toMatch(/directory; use list_directory/);
    expect(failed(await call("read_file", { path: "nope.txt" }))).toMatch(/does not exist/);
  });

  it("enforces the size limit but still serves line selections of a large file", async () => {
    const lines = Array.from({ length: 5000 }, (_, index) => `line ${index + 1}`);
    writeFileSync(path.join(root, "big.log"), `${lines.join("\n")}\n`);
    const { call } = setup({ maxReadBytes: 1024 });
    expect(failed(await call("read_file", { path: "big.log" }))).toMatch(
      /over the 1\.0 KB limit; read part of it/,
    );
    expect(ok(await call("read_file", { path: "big.log", head: 2 }))).toBe("line 1\nline 2");
    expect(ok(await call("read_file", { path: "big.log", startLine: 4000, endLine: 4001 }))).toBe(
      "line 4000\nline 4001",
    );
    expect(ok(await call("read_file", { path: "big.log", tail: 2 }))).toBe("line 4999\nline 5000");
    expect(failed(await call("read_file", { path: "big.log", startLine: 1, endLine: 4000 }))).toMatch(
      /exceed/,
    );
  });

  it("searches by glob, by content, and by both", async () => {
    const { call } = setup();
    const byName = ok(await call("search_files", { pattern: "*.ts" }));
    expect(byName).toContain(path.join(root, "src", "main.ts"));
    expect(byName).toContain(path.join(root, "src", "deep", "util.test.ts"));
    const byPath = ok(await call("search_files", { pattern: "src/**/*.test.ts" }));
    expect(byPath).toContain("util.test.ts");
    expect(byPath).not.toContain("main.ts");
    const byContent = ok(await call("search_files", { contains: "GREETING" }));
    expect(byContent).toContain(`${path.join(root, "src", "main.ts")}:1: export const greeting`);
    expect(ok(await call("search_files", { contains: "GREETING", caseSensitive: true }))).toBe(
      "No matches.\nContent not searched in 1 binary files.",
    );
    expect(ok(await call("search_files", { pattern: "*.txt", contains: "gamma" }))).toContain(
      "notes.txt:3: gamma",
    );
    expect(failed(await call("search_files", {}))).toMatch(/pattern.*contains/);
  });

  it("bounds search results and depth, and says so", async () => {
    for (let index = 0; index < 30; index++) writeFileSync(path.join(root, `f${index}.md`), "x");
    const { call } = setup();
    const limited = ok(await call("search_files", { pattern: "*.md", maxResults: 5 }));
    expect(limited.split("\n").filter((line) => line.endsWith(".md"))).toHaveLength(5);
    expect(limited).toContain("Stopped at 5 results");
    const shallow = ok(await call("search_files", { pattern: "*.ts", maxDepth: 1 }));
    expect(shallow).toBe("No matches.\n1 directories below maxDepth were not searched.");
  });

  it("stats files and reports symlinks without following them out", async () => {
    symlinkSync("notes.txt", path.join(root, "notes-link"));
    const { call } = setup();
    const result = await call("file_info", { path: "notes-link" });
    ok(result);
    expect(result.structuredContent).toMatchObject({
      path: path.join(root, "notes.txt"),
      type: "file",
      size: 23,
      isSymlink: true,
      linkPath: path.join(root, "notes-link"),
    });
    expect((await call("file_info", { path: root })).structuredContent).toMatchObject({ type: "directory" });
  });
});

describe("write tools", () => {
  it("writes new files (creating parents) and replaces existing ones", async () => {
    const { call } = setup({ allowWrites: true });
    expect(ok(await call("write_file", { path: "out/new/file.txt", content: "héllo" }))).toMatch(
      /^Created .* \(6 bytes\)/,
    );
    expect(readFileSync(path.join(root, "out", "new", "file.txt"), "utf8")).toBe("héllo");
    expect(ok(await call("write_file", { path: "notes.txt", content: "short" }))).toMatch(/^Replaced/);
    expect(readFileSync(path.join(root, "notes.txt"), "utf8")).toBe("short");
    expect(failed(await call("write_file", { path: "src", content: "x" }))).toMatch(/is a directory/);
  });

  it("writes through a symlink that stays inside the root", async () => {
    symlinkSync(path.join(root, "src"), path.join(root, "src-link"));
    const { call } = setup({ allowWrites: true });
    ok(await call("write_file", { path: "src-link/added.ts", content: "x" }));
    expect(readFileSync(path.join(root, "src", "added.ts"), "utf8")).toBe("x");
  });

  it("refuses to write a file that has another hard link", async () => {
    linkSync(path.join(root, "notes.txt"), path.join(root, "notes-hard"));
    const { call } = setup({ allowWrites: true });
    expect(failed(await call("write_file", { path: "notes-hard", content: "x" }))).toMatch(/hard links/);
    expect(readFileSync(path.join(root, "notes.txt"), "utf8")).toContain("alpha");
  });

  it("edits exact text, checks uniqueness, and shows a diff (dry run writes nothing)", async () => {
    const { call } = setup({ allowWrites: true });
    const preview = ok(
      await call("edit_file", {
        path: "notes.txt",
        edits: [{ oldText: "beta", newText: "BETA" }],
        dryRun: true,
      }),
    );
    expect(preview).toContain("Dry run, nothing written");
    expect(preview).toContain("-beta\n+BETA");
    expect(readFileSync(path.join(root, "notes.txt"), "utf8")).toContain("beta");

    const applied = ok(
      await call("edit_file", { path: "notes.txt", edits: [{ oldText: "beta", newText: "BETA" }] }),
    );
    expect(applied).toContain("@@ -1,4 +1,4 @@");
    expect(readFileSync(path.join(root, "notes.txt"), "utf8")).toBe("alpha\nBETA\ngamma\ndelta\n");

    writeFileSync(path.join(root, "dup.txt"), "x = 1\nx = 1\n");
    expect(
      failed(await call("edit_file", { path: "dup.txt", edits: [{ oldText: "x = 1", newText: "y" }] })),
    ).toMatch(/occurs 2 times/);
    ok(
      await call("edit_file", {
        path: "dup.txt",
        edits: [{ oldText: "x = 1", newText: "y", replaceAll: true }],
      }),
    );
    expect(readFileSync(path.join(root, "dup.txt"), "utf8")).toBe("y\ny\n");
    expect(
      failed(await call("edit_file", { path: "dup.txt", edits: [{ oldText: "zzz", newText: "y" }] })),
    ).toMatch(/not found/);
  });

  it("edits CRLF files when the model writes plain newlines", async () => {
    writeFileSync(path.join(root, "win.txt"), "one\r\ntwo\r\nthree\r\n");
    const { call } = setup({ allowWrites: true });
    ok(await call("edit_file", { path: "win.txt", edits: [{ oldText: "one\ntwo", newText: "1\n2" }] }));
    expect(readFileSync(path.join(root, "win.txt"), "utf8")).toBe("1\r\n2\r\nthree\r\n");
  });

  it("moves files and directories but never overwrites or moves a root", async () => {
    const { call } = setup({ allowWrites: true });
    ok(await call("move_file", { source: "notes.txt", destination: "archive/notes.txt" }));
    expect(existsSync(path.join(root, "archive", "notes.txt"))).toBe(true);
    expect(existsSync(path.join(root, "notes.txt"))).toBe(false);
    expect(
      failed(await call("move_file", { source: "src/main.ts", destination: "archive/notes.txt" })),
    ).toMatch(/already exists/);
    expect(failed(await call("move_file", { source: "src", destination: "src/deep/inner" }))).toMatch(
      /into itself/,
    );
    expect(failed(await call("move_file", { source: root, destination: "elsewhere" }))).toMatch(
      /allowed directory/,
    );
    ok(await call("move_file", { source: "src", destination: "lib" }));
    expect(existsSync(path.join(root, "lib", "main.ts"))).toBe(true);
  });

  it("deletes files, symlinks (not their targets) and empty directories only", async () => {
    symlinkSync("notes.txt", path.join(root, "notes-link"));
    const { call } = setup({ allowWrites: true });
    ok(await call("delete_file", { path: "notes-link" }));
    expect(existsSync(path.join(root, "notes-link"))).toBe(false);
    expect(existsSync(path.join(root, "notes.txt"))).toBe(true);
    ok(await call("delete_file", { path: "notes.txt" }));
    expect(existsSync(path.join(root, "notes.txt"))).toBe(false);
    expect(failed(await call("delete_file", { path: "src" }))).toMatch(/not empty/);
    expect(failed(await call("delete_file", { path: "." }))).toMatch(/allowed directory itself/);
    expect(existsSync(root)).toBe(true);
  });

  it("refuses to read a file that has another hard link (another name may be outside)", async () => {
    linkSync(path.join(root, "notes.txt"), path.join(base, "outside-name.txt"));
    const { call } = setup({ allowWrites: true });
    expect(failed(await call("read_file", { path: "notes.txt" }))).toMatch(/2 hard links/);
    expect(
      failed(
        await call("edit_file", {
          path: "notes.txt",
          edits: [{ oldText: "alpha", newText: "x" }],
          dryRun: true,
        }),
      ),
    ).toMatch(/hard links/);
    expect(ok(await call("search_files", { contains: "alpha" }))).toMatch(/^No matches\./);
  });

  it("resolves a relative path that starts with the root's own name inside that root (notes/b.txt, root ./notes)", async () => {
    const notes = path.join(base, "notes");
    mkdirSync(notes);
    writeFileSync(path.join(notes, "b.txt"), "bee");
    const registry = new ToolRegistry();
    registry.registerAll(createFilesystemTools({ roots: [notes], allowWrites: true }));
    const executor = new ToolExecutor(registry, { redact: false });
    expect(ok(await executor.call("read_file", { path: "notes/b.txt" }))).toBe("bee");
    expect(ok(await executor.call("read_file", { path: "b.txt" }))).toBe("bee");
    ok(await executor.call("write_file", { path: "notes/c.txt", content: "sea" }));
    expect(readFileSync(path.join(notes, "c.txt"), "utf8")).toBe("sea");
    expect(existsSync(path.join(notes, "notes"))).toBe(false);
  });

  it("reports contradictory arguments with their own error code, before looking at the path", async () => {
    const registry = new ToolRegistry();
    registry.registerAll(createFilesystemTools({ roots: [root] }));
    const tools = new Map(registry.definitions().map((tool) => [tool.tool.name, tool]));
    const context = { signal: new AbortController().signal } as never;
    for (const [name, args] of [
      ["read_file", { path: "no-such-file", head: 1, tail: 1 }],
      ["read_file", { path: "no-such-file", startLine: 5, endLine: 2 }],
      ["search_files", { path: "no-such-dir" }],
    ] as const) {
      const error = await Promise.resolve()
        .then(() => tools.get(name)!.handler(args as never, context))
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(FilesystemError);
      expect((error as FilesystemError).code).toBe("invalid-argument");
    }
  });
});
