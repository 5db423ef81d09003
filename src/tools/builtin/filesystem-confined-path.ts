import type { Stats } from "node:fs";
import path from "node:path";
import { describeFsError, errnoCode } from "./filesystem-describe-error.js";
import {
  changedDuringCall,
  DirectoryHandle,
  type HandleScope,
  type Identity,
} from "./filesystem-directory-handle.js";
import { FilesystemError } from "./filesystem-errors.js";
import { quotePath } from "./filesystem-quote-path.js";

import {
  CONTROL_CHARS,
  type FilesystemRoot,
  findContainingRoot,
  isInsideDirectory,
} from "./filesystem-root.js";

export { describeFsError } from "./filesystem-describe-error.js";
export { changedDuringCall } from "./filesystem-directory-handle.js";
export { quotePath } from "./filesystem-quote-path.js";
export {
  type FilesystemRoot,
  findContainingRoot,
  isInsideDirectory,
  prepareRoots,
} from "./filesystem-root.js";

/**
 * - `existing`: the target must exist; symlinks are followed (inside the roots) to the real file or directory.
 * - `entry`: the target must exist and is taken as a directory entry: its parent is resolved, the entry itself is not
 *   followed (delete and move act on a symlink, not on what it points to). A symlink entry must still point inside.
 * - `create`: the target may exist (then like `existing`) or not: then its deepest existing ancestor is resolved and
 *   every missing component must be a plain name, not reached through a dangling symlink.
 */
export type PathIntent = "existing" | "entry" | "create";

/**
 * A resolved path: an open, checked directory (`parent`) and the name of the target in it. Everything done with it
 * goes through `parent`, never through `real` again, so what was checked is what is used.
 */
export interface ConfinedPath {
  /** What the model asked for, verbatim. */
  readonly requested: string;
  /** Where the target is, with no symlink in any component (for `entry`: the parent's path plus the entry's name). */
  readonly real: string;
  /** The root that contains `real`. */
  readonly root: FilesystemRoot;
  readonly exists: boolean;
  /** lstat of the target when it exists (fstat of `parent` when the target is that directory itself). */
  readonly stats: Stats | undefined;
  /** `entry` only: the entry itself is a symbolic link (its target was checked to be inside the roots). */
  readonly isSymlink: boolean;
  /** The open directory holding the target, or the target itself when `name` is undefined (a root, `x/..`). */
  readonly parent: DirectoryHandle;
  /** The target's name in `parent` (for `create` when missing: the name to create in the last missing parent). */
  readonly name: string | undefined;
  /** `create` only: names of directories to make below `parent`, outermost first, before `name`. */
  readonly missingParents: readonly string[];
}

/** POSIX allows 40 symlinks per resolution (Linux MAXSYMLINKS); more means a loop. */
const MAX_SYMLINKS = 40;
/** Common PATH_MAX / NAME_MAX. Checked up front so a huge name fails with a clear message, not a syscall error. */
const MAX_PATH_BYTES = 4095;
const MAX_NAME_BYTES = 255;

function outsideRoots(
  requested: string,
  roots: readonly FilesystemRoot[],
  viaSymlink: boolean,
): FilesystemError {
  const how = viaSymlink ? "leads (through a symbolic link) outside" : "is outside";
  return new FilesystemError(
    "outside-roots",
    `Access denied: ${quotePath(requested)} ${how} the allowed directories (${roots.map((r) => r.real).join(", ")}). ` +
      "Use a path inside one of them; list_allowed_directories shows them.",
  );
}

/** Reject what can never be a sensible path before anything touches the filesystem. Nothing is ever decoded. */
function checkRequestedPath(requested: unknown): asserts requested is string {
  if (typeof requested !== "string") {
    throw new FilesystemError("invalid-path", "The path must be a string.");
  }
  if (requested.length === 0) {
    throw new FilesystemError(
      "invalid-path",
      "The path is empty; pass a file or directory path (relative paths start at the first allowed directory).",
    );
  }
  if (requested.includes("\u0000")) {
    throw new FilesystemError(
      "invalid-path",
      `The path ${quotePath(requested)} contains a NUL byte; remove it.`,
    );
  }
  if (CONTROL_CHARS.test(requested)) {
    throw new FilesystemError(
      "invalid-path",
      `The path ${quotePath(requested)} contains control characters (newline, tab, escape, …); file names here never do.`,
    );
  }
  if (Buffer.byteLength(requested) > MAX_PATH_BYTES) {
    throw new FilesystemError(
      "name-too-long",
      `The path ${quotePath(requested)} is longer than ${MAX_PATH_BYTES} bytes; use a shorter path.`,
    );
  }
  for (const name of requested.split(path.sep)) {
    if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
      throw new FilesystemError(
        "name-too-long",
        `A name in ${quotePath(requested)} is longer than ${MAX_NAME_BYTES} bytes; use a shorter name.`,
      );
    }
  }
}

interface Part {
  name: string;
  /** Came from a symlink's target rather than from the requested path. */
  fromLink: boolean;
}

function splitNames(relative: string, fromLink: boolean): Part[] {
  return relative
    .split(path.sep)
    .filter((name) => name.length > 0)
    .map((name) => ({ name, fromLink }));
}

/**
 * Match an absolute path against the roots' real and configured forms by whole components, without normalising
 * `..` away (POSIX resolves `a/..` after following `a`, so lexical collapsing would change the meaning).
 */
function matchRootPrefix(
  roots: readonly FilesystemRoot[],
  absolute: string,
): { root: FilesystemRoot; rest: string[] } | undefined {
  const components = absolute.split(path.sep).filter((name) => name.length > 0);
  let best: { root: FilesystemRoot; rest: string[]; length: number } | undefined;
  for (const root of roots) {
    for (const form of [root.real, root.configured]) {
      const prefix = form.split(path.sep).filter((name) => name.length > 0);
      if (prefix.length > components.length) continue;
      if (!prefix.every((name, index) => components[index] === name)) continue;
      if (!best || prefix.length > best.length)
        best = { root, rest: components.slice(prefix.length), length: prefix.length };
    }
  }
  return best && { root: best.root, rest: best.rest };
}

type WalkResult =
  /** Ended on a name in `dir` (lstat: a symlink only as the last component with followLast false). */
  | { kind: "entry"; dir: DirectoryHandle; name: string; stats: Stats }
  /** Ended on a directory itself: a root, or a path ending in `.` or `..`. */
  | { kind: "directory"; dir: DirectoryHandle }
  /** `remaining[0]` does not exist in `dir`. */
  | { kind: "missing"; dir: DirectoryHandle; remaining: Part[] };

/**
 * Resolve component by component from an opened root, like the kernel does, acting only on open directories: each
 * name is looked at relative to the directory handle it is in, each directory is opened without following a link
 * and must be the one just looked at (dev+ino), `..` is the opened parent (never lexical), and a symlink is read
 * and followed only if its target stays in the roots. A `..` or link target that leaves the roots is refused before
 * anything outside is looked at, and more than MAX_SYMLINKS links is reported as a loop.
 */
async function walk(
  scope: HandleScope,
  roots: readonly FilesystemRoot[],
  start: FilesystemRoot,
  parts: readonly Part[],
  requested: string,
  followLast: boolean,
): Promise<WalkResult> {
  let current = scope.track(await DirectoryHandle.openRoot(start, requested));
  /** The directories `current` was reached through, nearest last: what `..` must lead back to. */
  let ancestors: { identity: Identity; path: string }[] = [];
  const queue = [...parts];
  let followed = 0;
  const restartAt = async (root: FilesystemRoot) => {
    current = scope.track(await DirectoryHandle.openRoot(root, requested));
    ancestors = [];
  };
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part.name === ".") continue;
    if (part.name === "..") {
      const parent = ancestors.pop();
      if (parent) {
        current = scope.track(await current.openParent(parent));
        continue;
      }
      // At a root: its parent may only be used if it lies inside another (enclosing) root.
      const above = path.dirname(current.path);
      const enclosing = above === current.path ? undefined : findContainingRoot(roots, above);
      if (!enclosing) throw outsideRoots(requested, roots, part.fromLink);
      await restartAt(enclosing);
      queue.unshift(...splitNames(path.relative(enclosing.real, above), part.fromLink));
      continue;
    }
    const last = queue.length === 0;
    let stats: Stats;
    try {
      stats = await current.lstat(part.name);
    } catch (error) {
      if (errnoCode(error) === "ENOENT")
        return { kind: "missing", dir: current, remaining: [part, ...queue] };
      throw describeFsError(error, requested);
    }
    if (stats.isSymbolicLink() && (!last || followLast)) {
      followed += 1;
      if (followed > MAX_SYMLINKS) {
        throw new FilesystemError(
          "symlink-loop",
          `${quotePath(requested)} goes through a symbolic link loop (more than ${MAX_SYMLINKS} links); fix or remove the links.`,
        );
      }
      let target: string;
      try {
        target = await current.readlink(part.name);
      } catch (error) {
        throw errnoCode(error) === "EINVAL"
          ? changedDuringCall(requested)
          : describeFsError(error, requested);
      }
      if (path.isAbsolute(target)) {
        const match = matchRootPrefix(roots, target);
        if (!match) throw outsideRoots(requested, roots, true);
        await restartAt(match.root);
        queue.unshift(...match.rest.map((name) => ({ name, fromLink: true })));
      } else {
        queue.unshift(...splitNames(target, true));
      }
      continue;
    }
    if (last) return { kind: "entry", dir: current, name: part.name, stats };
    if (!stats.isDirectory()) {
      throw new FilesystemError(
        "not-a-directory",
        `A component of ${quotePath(requested)} is not a directory.`,
      );
    }
    ancestors.push({ identity: current.stats, path: current.path });
    current = scope.track(await current.openChild(part.name, stats));
  }
  return { kind: "directory", dir: current };
}

/** Make the request absolute (relative → first root) and check it is lexically inside a root before any syscall. */
function locate(
  roots: readonly FilesystemRoot[],
  requested: unknown,
): { requested: string; absolute: string; root: FilesystemRoot; parts: Part[]; relative: boolean } {
  checkRequestedPath(requested);
  const first = roots[0];
  if (!first) throw new FilesystemError("outside-roots", "No directories are allowed.");
  const absolute = path.resolve(first.real, requested);
  let best: { root: FilesystemRoot; form: string } | undefined;
  for (const root of roots) {
    for (const form of [root.real, root.configured]) {
      if (isInsideDirectory(absolute, form) && (!best || form.length > best.form.length))
        best = { root, form };
    }
  }
  if (!best) throw outsideRoots(requested, roots, false);
  return {
    requested,
    absolute,
    root: best.root,
    parts: splitNames(path.relative(best.form, absolute), false),
    relative: !path.isAbsolute(requested),
  };
}

/**
 * A relative path starting with an allowed directory's own name (`notes/b.txt` with the root `./notes`) means that
 * directory, unless the first root really holds an entry of that name (then that entry wins, as it always did).
 */
async function startOfRelative(
  scope: HandleScope,
  roots: readonly FilesystemRoot[],
  requested: string,
): Promise<{ root: FilesystemRoot; parts: Part[] } | undefined> {
  const parts = splitNames(requested, false);
  const head = parts[0]?.name;
  if (head === undefined || head === "." || head === "..") return undefined;
  const named = roots.find(
    (root) => path.basename(root.configured) === head || path.basename(root.real) === head,
  );
  if (!named) return undefined;
  const first = scope.track(await DirectoryHandle.openRoot(roots[0]!, requested));
  const there = await first.lstat(head).catch((error: unknown) => {
    if (errnoCode(error) === "ENOENT") return undefined;
    throw describeFsError(error, requested);
  });
  return there ? undefined : { root: named, parts: parts.slice(1) };
}

function resolved(
  requested: string,
  dir: DirectoryHandle,
  name: string | undefined,
  stats: Stats | undefined,
  extra: Partial<Pick<ConfinedPath, "isSymlink" | "missingParents" | "real">> = {},
): ConfinedPath {
  return {
    requested,
    real: name === undefined ? dir.path : path.join(dir.path, name),
    root: dir.root,
    exists: stats !== undefined,
    stats,
    isSymlink: false,
    parent: dir,
    name,
    missingParents: [],
    ...extra,
  };
}

/**
 * Resolve a path the model sent to an open directory and a name inside the allowed roots, or throw a FilesystemError.
 * Never decodes anything (`%2e%2e` and `．．` are literal names), never looks outside the roots, never follows a
 * symlink out. The directories it opens belong to `scope` and stay valid until the scope is closed.
 */
export async function resolveConfinedPath(
  scope: HandleScope,
  roots: readonly FilesystemRoot[],
  requestedPath: unknown,
  intent: PathIntent,
): Promise<ConfinedPath> {
  const located = locate(roots, requestedPath);
  const { requested, absolute } = located;
  let { root, parts } = located;
  if (located.relative) {
    const start = await startOfRelative(scope, roots, requested);
    if (start) ({ root, parts } = start);
  }

  if (intent === "entry") {
    const named = parts.filter((part) => part.name !== ".");
    if (roots.some((r) => r.real === absolute || r.configured === absolute) || named.length === 0) {
      throw new FilesystemError(
        "invalid-path",
        `${quotePath(requested)} is an allowed directory itself; it cannot be moved or deleted.`,
      );
    }
    if (named[named.length - 1]!.name === "..") {
      throw new FilesystemError(
        "invalid-path",
        `${quotePath(requested)} ends in ".."; name the file or directory itself.`,
      );
    }
    const walked = await walk(scope, roots, root, named, requested, false);
    if (walked.kind !== "entry") throw describeFsError({ code: "ENOENT" }, requested);
    const isSymlink = walked.stats.isSymbolicLink();
    // The link itself is inside, but one pointing out is refused anyway: moving it elsewhere could change where a
    // relative target lands, and "no symlink out of the roots is ever acted on" is the simpler rule to trust.
    if (isSymlink) await walk(scope, roots, root, named, requested, true);
    return resolved(requested, walked.dir, walked.name, walked.stats, { isSymlink });
  }

  const walked = await walk(scope, roots, root, parts, requested, true);
  if (walked.kind === "entry") return resolved(requested, walked.dir, walked.name, walked.stats);
  if (walked.kind === "directory") return resolved(requested, walked.dir, undefined, walked.dir.stats);
  if (intent === "existing") throw describeFsError({ code: "ENOENT" }, requested);

  if (walked.remaining.some((part) => part.fromLink || part.name === "." || part.name === "..")) {
    throw new FilesystemError(
      "invalid-path",
      `${quotePath(requested)} goes through a symbolic link whose target does not exist; refusing to create anything through it.`,
    );
  }
  const names = walked.remaining.map((part) => part.name);
  const last = names[names.length - 1]!;
  return resolved(requested, walked.dir, last, undefined, {
    missingParents: names.slice(0, -1),
    real: path.join(walked.dir.path, ...names),
  });
}
