import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  type FilesystemRoot,
  isInsideDirectory,
  prepareRoots,
  resolveConfinedPath,
} from "./filesystem-confined-path.js";
import { HandleScope } from "./filesystem-directory-handle.js";
import { FilesystemError } from "./filesystem-errors.js";

let base: string;
let root: string;
let roots: FilesystemRoot[];
let scope: HandleScope;

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), "tb-confine-"));
  root = path.join(base, "root");
  mkdirSync(path.join(root, "a", "b"), { recursive: true });
  mkdirSync(path.join(base, "outside"));
  writeFileSync(path.join(root, "a", "b", "file.txt"), "x");
  writeFileSync(path.join(base, "outside", "secret.txt"), "s");
  roots = prepareRoots([root]);
  scope = new HandleScope();
});

afterEach(async () => {
  await scope.close();
  rmSync(base, { recursive: true, force: true });
});

async function refusal(requested: unknown, intent: "existing" | "entry" | "create" = "existing") {
  const error = await resolveConfinedPath(scope, roots, requested, intent).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected ${JSON.stringify(requested)} to be refused`).toBeInstanceOf(FilesystemError);
  return error as FilesystemError;
}

describe("isInsideDirectory", () => {
  it("compares whole components", () => {
    expect(isInsideDirectory("/tmp/root", "/tmp/root")).toBe(true);
    expect(isInsideDirectory("/tmp/root/x", "/tmp/root")).toBe(true);
    expect(isInsideDirectory("/tmp/rootX", "/tmp/root")).toBe(false);
    expect(isInsideDirectory("/tmp/root-evil/x", "/tmp/root")).toBe(false);
    expect(isInsideDirectory("/anything", "/")).toBe(true);
  });
});

describe("resolveConfinedPath", () => {
  it("resolves relative paths against the first root and absolute paths inside any root", async () => {
    const relative = await resolveConfinedPath(scope, roots, "a/b/file.txt", "existing");
    expect(relative.real).toBe(path.join(roots[0]!.real, "a", "b", "file.txt"));
    expect(relative.stats?.isFile()).toBe(true);
    const absolute = await resolveConfinedPath(scope, roots, path.join(root, "a"), "existing");
    expect(absolute.stats?.isDirectory()).toBe(true);
    expect((await resolveConfinedPath(scope, roots, "a/../a/./b", "existing")).real).toBe(
      path.join(root, "a", "b"),
    );
  });

  it("refuses lexical escapes before touching the filesystem, with a message naming only the request", async () => {
    const error = await refusal("../outside/secret.txt");
    expect(error.code).toBe("outside-roots");
    expect(error.message).toContain('"../outside/secret.txt"');
    expect(error.message).not.toContain(path.join(base, "outside"));
    expect((await refusal(`${root}X`)).code).toBe("outside-roots");
    expect((await refusal("/etc/passwd")).code).toBe("outside-roots");
  });

  it("follows symlinks that stay inside, refuses those that leave, without revealing the target", async () => {
    symlinkSync("a/b", path.join(root, "inner"));
    symlinkSync(path.join(root, "a"), path.join(root, "inner-abs"));
    symlinkSync(path.join(base, "outside"), path.join(root, "out"));
    symlinkSync("../../../outside/secret.txt", path.join(root, "a", "b", "rel-out"));
    expect((await resolveConfinedPath(scope, roots, "inner/file.txt", "existing")).real).toBe(
      path.join(root, "a", "b", "file.txt"),
    );
    expect((await resolveConfinedPath(scope, roots, "inner-abs/b/file.txt", "existing")).real).toBe(
      path.join(root, "a", "b", "file.txt"),
    );
    for (const hostile of ["out", "out/secret.txt", "a/b/rel-out"]) {
      const error = await refusal(hostile);
      expect(error.code).toBe("outside-roots");
      expect(error.message).toContain("through a symbolic link");
      expect(error.message).not.toContain(path.join(base, "outside"));
    }
  });

  it("resolves `..` after a symlink from the link's real target, as the kernel does", async () => {
    // inner → a/b, so inner/../b is a/b (not root/b): the walk must not collapse `..` lexically inside link targets.
    symlinkSync("a/b/../b", path.join(root, "inner"));
    expect((await resolveConfinedPath(scope, roots, "inner/file.txt", "existing")).real).toBe(
      path.join(root, "a", "b", "file.txt"),
    );
  });

  it("reports loops and over-long names clearly instead of hanging or failing obscurely", async () => {
    symlinkSync("loop2", path.join(root, "loop1"));
    symlinkSync("loop1", path.join(root, "loop2"));
    expect((await refusal("loop1/x")).code).toBe("symlink-loop");
    expect((await refusal("loop1", "create")).code).toBe("symlink-loop");
    expect((await refusal("n".repeat(256))).code).toBe("name-too-long");
    expect((await refusal("n/".repeat(2048))).code).toBe("name-too-long");
  });

  it("rejects NUL bytes, control characters, empty and non-string paths, and decodes nothing", async () => {
    expect((await refusal("a\u0000b")).message).toMatch(/NUL byte/);
    expect((await refusal("a\tb")).message).toMatch(/control characters/);
    expect((await refusal("")).code).toBe("invalid-path");
    expect((await refusal(42)).code).toBe("invalid-path");
    // Literal names: "%2e%2e" and "．．" are directories called that, so the result stays inside the root.
    for (const literal of ["%2e%2e/outside/secret.txt", "．．/outside/secret.txt", "..\\outside"]) {
      const created = await resolveConfinedPath(scope, roots, literal, "create");
      expect(isInsideDirectory(created.real, roots[0]!.real)).toBe(true);
      expect(created.exists).toBe(false);
    }
  });

  it("create: resolves the deepest existing ancestor and lists the parents to make", async () => {
    const target = await resolveConfinedPath(scope, roots, "a/new/deeper/file.txt", "create");
    expect(target.exists).toBe(false);
    expect(target.real).toBe(path.join(root, "a", "new", "deeper", "file.txt"));
    expect(target.missingParents).toEqual(["new", "deeper"]);
    expect(target.parent.path).toBe(path.join(roots[0]!.real, "a"));
    expect(target.name).toBe("file.txt");
  });

  it("create: refuses to go through a dangling symlink, even one pointing inside", async () => {
    symlinkSync(path.join(base, "outside", "planted.txt"), path.join(root, "dangling-out"));
    symlinkSync("not-yet", path.join(root, "dangling-in"));
    expect((await refusal("dangling-out", "create")).code).toBe("outside-roots");
    expect((await refusal("dangling-in/file.txt", "create")).message).toMatch(/target does not exist/);
  });

  it("entry: acts on the link itself, refuses roots and links that point out", async () => {
    symlinkSync("a/b/file.txt", path.join(root, "link"));
    symlinkSync(path.join(base, "outside"), path.join(root, "out"));
    const entry = await resolveConfinedPath(scope, roots, "link", "entry");
    expect(entry.isSymlink).toBe(true);
    expect(entry.real).toBe(path.join(root, "link"));
    expect((await refusal(".", "entry")).message).toMatch(/allowed directory itself/);
    expect((await refusal(root, "entry")).message).toMatch(/allowed directory itself/);
    expect((await refusal("out", "entry")).code).toBe("outside-roots");
  });

  it("accepts absolute paths written with a symlinked root's configured form", async () => {
    symlinkSync(root, path.join(base, "root-link"));
    const viaLink = prepareRoots([path.join(base, "root-link")]);
    const target = await resolveConfinedPath(
      scope,
      viaLink,
      path.join(base, "root-link", "a", "b", "file.txt"),
      "existing",
    );
    expect(target.real).toBe(path.join(viaLink[0]!.real, "a", "b", "file.txt"));
  });

  it("starts a relative path at the root it names (`notes/b.txt` with root ./notes), unless the first root has that entry", async () => {
    const notes = path.join(base, "notes");
    mkdirSync(notes);
    writeFileSync(path.join(notes, "b.txt"), "b");
    const both = prepareRoots([root, notes]);
    expect((await resolveConfinedPath(scope, both, "notes/b.txt", "existing")).real).toBe(
      path.join(both[1]!.real, "b.txt"),
    );
    // A single root named notes: "notes/b.txt" is its b.txt, not notes/notes/b.txt.
    const alone = prepareRoots([notes]);
    expect((await resolveConfinedPath(scope, alone, "notes/b.txt", "existing")).real).toBe(
      path.join(alone[0]!.real, "b.txt"),
    );
    expect((await resolveConfinedPath(scope, alone, "notes/new.txt", "create")).real).toBe(
      path.join(alone[0]!.real, "new.txt"),
    );
    // An entry of that name in the first root wins, as it always did.
    mkdirSync(path.join(notes, "notes"));
    writeFileSync(path.join(notes, "notes", "b.txt"), "inner");
    expect((await resolveConfinedPath(scope, alone, "notes/b.txt", "existing")).real).toBe(
      path.join(alone[0]!.real, "notes", "b.txt"),
    );
  });

  it("walks `..` on open directories: back through where it came from, never out of a root", async () => {
    expect((await resolveConfinedPath(scope, roots, "a/b/../../a/b/file.txt", "existing")).real).toBe(
      path.join(roots[0]!.real, "a", "b", "file.txt"),
    );
    expect((await refusal("a/../..")).code).toBe("outside-roots");
    // A nested root's parent is usable when it lies in an enclosing root.
    const nested = prepareRoots([path.join(root, "a"), root]);
    expect((await resolveConfinedPath(scope, nested, path.join(root, "a", ".."), "existing")).real).toBe(
      nested[1]!.real,
    );
  });

  it("refuses a root that was replaced after the tools were created", async () => {
    renameSync(root, `${root}-old`);
    mkdirSync(root);
    const error = await refusal(".");
    expect(error.code).toBe("changed-during-call");
    expect(error.message).toMatch(/was replaced or moved/);
  });
});
