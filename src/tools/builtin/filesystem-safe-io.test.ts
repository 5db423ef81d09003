import {
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type FilesystemRoot, prepareRoots, resolveConfinedPath } from "./filesystem-confined-path.js";
import { currentLookupMode, HandleScope } from "./filesystem-directory-handle.js";
import { FilesystemError } from "./filesystem-errors.js";
import {
  createMissingParents,
  listDirectory,
  openConfinedDirectory,
  openConfinedFile,
  overwrite,
  readBytes,
} from "./filesystem-safe-io.js";

let base: string;
let root: string;
let outside: string;
let roots: FilesystemRoot[];
let scope: HandleScope;

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), "tb-safeio-"));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  mkdirSync(path.join(root, "dir"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(root, "dir", "file.txt"), "inside");
  writeFileSync(path.join(outside, "file.txt"), "OUTSIDE");
  roots = prepareRoots([root]);
  scope = new HandleScope();
});

afterEach(async () => {
  await scope.close();
  rmSync(base, { recursive: true, force: true });
});

async function expectChanged(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FilesystemError);
  expect((error as FilesystemError).code).toBe("changed-during-call");
}

describe("use-time re-checks (TOCTOU)", () => {
  it("reads a resolved file", async () => {
    const target = await resolveConfinedPath(scope, roots, "dir/file.txt", "existing");
    const { handle } = await openConfinedFile(scope, target, "read");
    try {
      expect((await readBytes(handle, 100)).toString()).toBe("inside");
    } finally {
      await handle.close();
    }
  });

  it("refuses a file swapped for a symlink after resolution (O_NOFOLLOW)", async () => {
    const target = await resolveConfinedPath(scope, roots, "dir/file.txt", "existing");
    rmSync(path.join(root, "dir", "file.txt"));
    symlinkSync(path.join(outside, "file.txt"), path.join(root, "dir", "file.txt"));
    await expectChanged(openConfinedFile(scope, target, "read"));
    await expectChanged(openConfinedFile(scope, target, "write"));
    expect(readFileSync(path.join(outside, "file.txt"), "utf8")).toBe("OUTSIDE");
  });

  it("writes into the directory that was checked even when its path is swapped for a symlink meanwhile", async () => {
    const target = await resolveConfinedPath(scope, roots, "dir/file.txt", "existing");
    renameSync(path.join(root, "dir"), path.join(root, "dir-old"));
    symlinkSync(outside, path.join(root, "dir"));
    const opened = await openConfinedFile(scope, target, "write").catch((error: unknown) => error);
    if (currentLookupMode() === "proc-fd") {
      // Linux: the open went through the held directory, which is now dir-old.
      const { handle } = opened as Awaited<ReturnType<typeof openConfinedFile>>;
      await overwrite(handle, "changed");
      await handle.close();
      expect(readFileSync(path.join(root, "dir-old", "file.txt"), "utf8")).toBe("changed");
    } else {
      expect((opened as FilesystemError).code).toBe("changed-during-call");
    }
    expect(readFileSync(path.join(outside, "file.txt"), "utf8")).toBe("OUTSIDE");
  });

  it("refuses to read or write a file with more than one hard link", async () => {
    linkSync(path.join(root, "dir", "file.txt"), path.join(root, "second-name.txt"));
    const target = await resolveConfinedPath(scope, roots, "dir/file.txt", "existing");
    for (const mode of ["read", "write"] as const) {
      const error = await openConfinedFile(scope, target, mode).catch((caught: unknown) => caught);
      expect((error as FilesystemError).code).toBe("hard-linked");
    }
  });

  it("refuses to list a directory swapped for a symlink after resolution", async () => {
    const target = await resolveConfinedPath(scope, roots, "dir", "existing");
    renameSync(path.join(root, "dir"), path.join(root, "dir-old"));
    symlinkSync(outside, path.join(root, "dir"));
    await expectChanged(openConfinedDirectory(scope, target).then(listDirectory));
  });

  it("refuses to create parents when one appeared as a symlink meanwhile", async () => {
    const target = await resolveConfinedPath(scope, roots, "fresh/sub/file.txt", "create");
    symlinkSync(outside, path.join(root, "fresh"));
    await expectChanged(createMissingParents(scope, target));
    expect(existsSync(path.join(outside, "sub"))).toBe(false);
  });

  it("creates parents and writes a new file without truncating before the checks", async () => {
    const target = await resolveConfinedPath(scope, roots, "fresh/sub/file.txt", "create");
    await createMissingParents(scope, target);
    const { handle } = await openConfinedFile(scope, target, "write", true);
    try {
      expect(await overwrite(handle, "new content")).toBe(11);
    } finally {
      await handle.close();
    }
    expect(readFileSync(path.join(root, "fresh", "sub", "file.txt"), "utf8")).toBe("new content");
  });
});
