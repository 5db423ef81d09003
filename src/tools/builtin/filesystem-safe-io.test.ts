import {
  existsSync,
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
import { FilesystemError } from "./filesystem-errors.js";
import {
  createMissingParents,
  openConfinedFile,
  overwrite,
  readBytes,
  readConfinedDirectory,
} from "./filesystem-safe-io.js";

let base: string;
let root: string;
let outside: string;
let roots: FilesystemRoot[];

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), "tb-safeio-"));
  root = path.join(base, "root");
  outside = path.join(base, "outside");
  mkdirSync(path.join(root, "dir"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(root, "dir", "file.txt"), "inside");
  writeFileSync(path.join(outside, "file.txt"), "OUTSIDE");
  roots = prepareRoots([root]);
});

afterEach(() => {
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
    const target = await resolveConfinedPath(roots, "dir/file.txt", "existing");
    const { handle } = await openConfinedFile(roots, target, "read");
    try {
      expect((await readBytes(handle, 100)).toString()).toBe("inside");
    } finally {
      await handle.close();
    }
  });

  it("refuses a file swapped for a symlink after resolution (O_NOFOLLOW)", async () => {
    const target = await resolveConfinedPath(roots, "dir/file.txt", "existing");
    rmSync(path.join(root, "dir", "file.txt"));
    symlinkSync(path.join(outside, "file.txt"), path.join(root, "dir", "file.txt"));
    await expectChanged(openConfinedFile(roots, target, "read"));
    await expectChanged(openConfinedFile(roots, target, "write"));
    expect(readFileSync(path.join(outside, "file.txt"), "utf8")).toBe("OUTSIDE");
  });

  it("refuses a parent directory swapped for a symlink after resolution", async () => {
    const target = await resolveConfinedPath(roots, "dir/file.txt", "existing");
    renameSync(path.join(root, "dir"), path.join(root, "dir-old"));
    symlinkSync(outside, path.join(root, "dir"));
    await expectChanged(openConfinedFile(roots, target, "write"));
    expect(readFileSync(path.join(outside, "file.txt"), "utf8")).toBe("OUTSIDE");
  });

  it("refuses to list a directory swapped for a symlink after resolution", async () => {
    const target = await resolveConfinedPath(roots, "dir", "existing");
    renameSync(path.join(root, "dir"), path.join(root, "dir-old"));
    symlinkSync(outside, path.join(root, "dir"));
    await expectChanged(readConfinedDirectory(roots, target));
  });

  it("refuses to create parents when one appeared as a symlink meanwhile", async () => {
    const target = await resolveConfinedPath(roots, "fresh/sub/file.txt", "create");
    symlinkSync(outside, path.join(root, "fresh"));
    await expectChanged(createMissingParents(roots, target));
    expect(existsSync(path.join(outside, "sub"))).toBe(false);
  });

  it("creates parents and writes a new file without truncating before the checks", async () => {
    const target = await resolveConfinedPath(roots, "fresh/sub/file.txt", "create");
    await createMissingParents(roots, target);
    const { handle } = await openConfinedFile(roots, target, "write", true);
    try {
      expect(await overwrite(handle, "new content")).toBe(11);
    } finally {
      await handle.close();
    }
    expect(readFileSync(path.join(root, "fresh", "sub", "file.txt"), "utf8")).toBe("new content");
  });
});
