import { mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  currentLookupMode,
  DirectoryHandle,
  forceLookupMode,
  HandleScope,
} from "./filesystem-directory-handle.js";
import { FilesystemError } from "./filesystem-errors.js";
import { type FilesystemRoot, prepareRoots } from "./filesystem-root.js";

let base: string;
let root: FilesystemRoot;
let scope: HandleScope;

beforeEach(() => {
  base = mkdtempSync(path.join(tmpdir(), "tb-dirhandle-"));
  mkdirSync(path.join(base, "root", "dir"), { recursive: true });
  mkdirSync(path.join(base, "outside"));
  writeFileSync(path.join(base, "root", "dir", "file.txt"), "inside");
  writeFileSync(path.join(base, "outside", "file.txt"), "OUTSIDE");
  root = prepareRoots([path.join(base, "root")])[0]!;
  scope = new HandleScope();
});

afterEach(async () => {
  await scope.close();
  forceLookupMode(undefined);
  rmSync(base, { recursive: true, force: true });
});

async function code(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(FilesystemError);
  return (error as FilesystemError).code;
}

describe.skipIf(process.platform !== "linux")("DirectoryHandle on Linux", () => {
  it("looks names up in the open directory, not by path, once a directory is held", async () => {
    const top = scope.track(await DirectoryHandle.openRoot(root, "dir/file.txt"));
    expect(currentLookupMode()).toBe("proc-fd");
    const dir = scope.track(await top.openChild("dir", undefined));
    // The path now leads outside, but the held directory is the one that was opened.
    renameSync(path.join(root.real, "dir"), path.join(root.real, "dir-moved"));
    symlinkSync(path.join(base, "outside"), path.join(root.real, "dir"));
    expect(await readFile(await dir.entry("file.txt"), "utf8")).toBe("inside");
    expect(readdirSync(await dir.self())).toEqual(["file.txt"]);
  });

  it("in checked-path mode (other platforms) refuses a held directory whose path was swapped", async () => {
    forceLookupMode("checked-path");
    const top = scope.track(await DirectoryHandle.openRoot(root, "dir/file.txt"));
    const dir = scope.track(await top.openChild("dir", undefined));
    renameSync(path.join(root.real, "dir"), path.join(root.real, "dir-moved"));
    symlinkSync(path.join(base, "outside"), path.join(root.real, "dir"));
    expect(await code(dir.entry("file.txt"))).toBe("changed-during-call");
  });
});

describe("DirectoryHandle", () => {
  it("never opens a symlink as a directory, and refuses a directory that is not the one looked at", async () => {
    symlinkSync(path.join(base, "outside"), path.join(root.real, "link"));
    const top = scope.track(await DirectoryHandle.openRoot(root, "link"));
    expect(await code(top.openChild("link", undefined))).toBe("changed-during-call");
    const other = scope.track(await top.openChild("dir", undefined));
    expect(await code(top.openChild("dir", { dev: other.stats.dev, ino: other.stats.ino + 1 }))).toBe(
      "changed-during-call",
    );
  });

  it("opens `..` only when it is the directory the walk came from", async () => {
    const top = scope.track(await DirectoryHandle.openRoot(root, "dir/.."));
    const dir = scope.track(await top.openChild("dir", undefined));
    const back = scope.track(await dir.openParent({ identity: top.stats, path: top.path }));
    expect(back.stats.ino).toBe(top.stats.ino);
    expect(back.isRoot).toBe(true);
    // dir moved elsewhere inside: its `..` is no longer where the walk came from.
    mkdirSync(path.join(root.real, "elsewhere"));
    renameSync(path.join(root.real, "dir"), path.join(root.real, "elsewhere", "dir"));
    expect(await code(dir.openParent({ identity: top.stats, path: top.path }))).toBe("changed-during-call");
  });

  it("refuses a root that was moved away or replaced since the tools were created", async () => {
    renameSync(root.real, `${root.real}-old`);
    expect(await code(DirectoryHandle.openRoot(root, "x"))).toBe("changed-during-call");
    mkdirSync(root.real);
    const error = await DirectoryHandle.openRoot(root, "x").catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/was replaced or moved since the tools were created/);
  });
});
