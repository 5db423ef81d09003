import { realpathSync, type Stats, statSync } from "node:fs";
import { lstat, readlink, realpath } from "node:fs/promises";
import path from "node:path";
import { FilesystemConfigError, FilesystemError } from "./filesystem-errors.js";

/** An allowed directory. Containment is always decided on `real`; `configured` only helps recognise absolute paths. */
export interface FilesystemRoot {
  /** The root as configured, made absolute (it may contain symlinks, e.g. macOS `/tmp`). */
  readonly configured: string;
  /** Its real path, taken once at creation. */
  readonly real: string;
}

/**
 * - `existing`: the target must exist; symlinks are followed (inside the roots) to the real file or directory.
 * - `entry`: the target must exist and is taken as a directory entry: its parent is resolved, the entry itself is not
 *   followed (delete and move act on a symlink, not on what it points to). A symlink entry must still point inside.
 * - `create`: the target may exist (then like `existing`) or not: then its deepest existing ancestor is resolved and
 *   every missing component must be a plain name, not reached through a dangling symlink.
 */
export type PathIntent = "existing" | "entry" | "create";

export interface ConfinedPath {
  /** What the model asked for, verbatim. */
  readonly requested: string;
  /** Absolute path with no symlink in any component (for `entry`: the real parent plus the entry's own name). */
  readonly real: string;
  /** The root that contains `real`. */
  readonly root: FilesystemRoot;
  readonly exists: boolean;
  /** lstat of `real` when it exists. */
  readonly stats: Stats | undefined;
  /** `entry` only: the entry itself is a symbolic link (its target was checked to be inside the roots). */
  readonly isSymlink: boolean;
  /** `create` only: directories (outermost first) that do not exist yet between the deepest ancestor and `real`. */
  readonly missingParents: readonly string[];
}

/** POSIX allows 40 symlinks per resolution (Linux MAXSYMLINKS); more means a loop. */
const MAX_SYMLINKS = 40;
/** Common PATH_MAX / NAME_MAX. Checked up front so a huge name fails with a clear message, not a syscall error. */
const MAX_PATH_BYTES = 4095;
const MAX_NAME_BYTES = 255;
// C0 and C1 controls and DEL: never part of a name a model should be sending, and NUL truncates paths in C code.
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** Show a requested path in a message: quoted, escaped and short. */
export function quotePath(requested: string): string {
  const shown =
    requested.length > 160 ? `${requested.slice(0, 100)}…(${requested.length} characters)` : requested;
  return JSON.stringify(shown);
}

/** `candidate` is `directory` or below it. Compares whole components, so `/root-evil` is not inside `/root`. */
export function isInsideDirectory(candidate: string, directory: string): boolean {
  if (candidate === directory) return true;
  const prefix = directory.endsWith(path.sep) ? directory : directory + path.sep;
  return candidate.startsWith(prefix);
}

/** The innermost root whose real path contains `real`, if any. */
export function findContainingRoot(
  roots: readonly FilesystemRoot[],
  real: string,
): FilesystemRoot | undefined {
  let best: FilesystemRoot | undefined;
  for (const root of roots) {
    if (isInsideDirectory(real, root.real) && (!best || root.real.length > best.real.length)) best = root;
  }
  return best;
}

/** Realpath the configured roots once. A root that is missing or not a directory is a configuration error. */
export function prepareRoots(roots: readonly string[]): FilesystemRoot[] {
  if (!Array.isArray(roots) || roots.length === 0) {
    throw new FilesystemConfigError(
      'filesystem.roots must list at least one directory, e.g. {"filesystem": {"roots": ["./workspace"]}}.',
    );
  }
  const prepared: FilesystemRoot[] = [];
  for (const root of roots) {
    if (typeof root !== "string" || root.length === 0 || CONTROL_CHARS.test(root)) {
      throw new FilesystemConfigError(
        `filesystem.roots entries must be non-empty directory paths without control characters; got ${JSON.stringify(root)}.`,
      );
    }
    const configured = path.resolve(root);
    let real: string;
    try {
      real = realpathSync.native(configured);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "ENOENT" ? "does not exist" : `cannot be opened (${code ?? "unknown error"})`;
      throw new FilesystemConfigError(
        `Filesystem root ${JSON.stringify(root)} ${why}; create it or remove it from filesystem.roots.`,
      );
    }
    if (!statSync(real).isDirectory()) {
      throw new FilesystemConfigError(
        `Filesystem root ${JSON.stringify(root)} is not a directory; filesystem.roots must list directories.`,
      );
    }
    if (!prepared.some((existing) => existing.real === real)) prepared.push({ configured, real });
  }
  return prepared;
}

function errnoCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
}

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

/**
 * Turn an error from a filesystem call into a FilesystemError that names only the requested path: the raw message
 * would carry the syscall's own path, which after symlink expansion may be one the model must not learn.
 */
export function describeFsError(error: unknown, requested: string): FilesystemError {
  if (error instanceof FilesystemError) return error;
  const shown = quotePath(requested);
  switch (errnoCode(error)) {
    case "ENOENT":
      return new FilesystemError("not-found", `${shown} does not exist. Check the name with list_directory.`);
    case "EEXIST":
    case "ENOTEMPTY":
      return new FilesystemError(
        "already-exists",
        `${shown} already exists (or is a directory that is not empty).`,
      );
    case "ENOTDIR":
      return new FilesystemError("not-a-directory", `A component of ${shown} is not a directory.`);
    case "EISDIR":
      return new FilesystemError("not-a-file", `${shown} is a directory, not a file.`);
    case "ELOOP":
      return new FilesystemError(
        "symlink-loop",
        `${shown} goes through a symbolic link loop (or a symbolic link appeared where none may be); nothing was done.`,
      );
    case "ENAMETOOLONG":
      return new FilesystemError(
        "name-too-long",
        `${shown} is too long for the filesystem; use a shorter name.`,
      );
    case "EACCES":
    case "EPERM":
      return new FilesystemError("permission-denied", `Permission denied for ${shown}.`);
    case "EXDEV":
      return new FilesystemError(
        "io-error",
        `${shown} cannot be moved across filesystems (different roots or mounts); copy it with read_file and write_file instead.`,
      );
    case "EINVAL":
      return new FilesystemError(
        "invalid-path",
        `${shown} cannot be used here (for example, a directory moved into itself).`,
      );
    default:
      return new FilesystemError(
        "io-error",
        `The filesystem refused ${shown} (${errnoCode(error) ?? "unknown error"}).`,
      );
  }
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
  | { exists: true; real: string; root: FilesystemRoot; stats: Stats }
  | { exists: false; ancestor: string; root: FilesystemRoot; remaining: Part[] };

/**
 * Resolve component by component from a root, like the kernel does, but check every step: a `..` or a symlink
 * target that leaves the roots is refused before anything outside is even looked at (so errors cannot reveal what
 * exists there), and a chain of more than MAX_SYMLINKS links is reported as a loop instead of spinning.
 */
async function walk(
  roots: readonly FilesystemRoot[],
  start: FilesystemRoot,
  parts: readonly Part[],
  requested: string,
): Promise<WalkResult> {
  let current = start.real;
  let currentRoot = start;
  let stats: Stats | undefined;
  const queue = [...parts];
  let followed = 0;
  while (queue.length > 0) {
    const part = queue.shift()!;
    if (part.name === ".") continue;
    if (part.name === "..") {
      const parent = path.dirname(current);
      const root = findContainingRoot(roots, parent);
      if (!root) throw outsideRoots(requested, roots, part.fromLink);
      current = parent;
      currentRoot = root;
      stats = undefined;
      continue;
    }
    const next = path.join(current, part.name);
    let entry: Stats;
    try {
      entry = await lstat(next);
    } catch (error) {
      if (errnoCode(error) === "ENOENT")
        return { exists: false, ancestor: current, root: currentRoot, remaining: [part, ...queue] };
      throw describeFsError(error, requested);
    }
    if (entry.isSymbolicLink()) {
      followed += 1;
      if (followed > MAX_SYMLINKS) {
        throw new FilesystemError(
          "symlink-loop",
          `${quotePath(requested)} goes through a symbolic link loop (more than ${MAX_SYMLINKS} links); fix or remove the links.`,
        );
      }
      let target: string;
      try {
        target = await readlink(next);
      } catch (error) {
        throw describeFsError(error, requested);
      }
      if (path.isAbsolute(target)) {
        const match = matchRootPrefix(roots, target);
        if (!match) throw outsideRoots(requested, roots, true);
        current = match.root.real;
        currentRoot = match.root;
        stats = undefined;
        queue.unshift(...match.rest.map((name) => ({ name, fromLink: true })));
      } else {
        queue.unshift(...splitNames(target, true));
      }
      continue;
    }
    if (queue.length > 0 && !entry.isDirectory()) {
      throw new FilesystemError(
        "not-a-directory",
        `A component of ${quotePath(requested)} is not a directory.`,
      );
    }
    current = next;
    stats = entry;
  }
  if (!stats) {
    try {
      stats = await lstat(current);
    } catch (error) {
      throw describeFsError(error, requested);
    }
  }
  return { exists: true, real: current, root: currentRoot, stats };
}

/** Make the request absolute (relative → first root) and check it is lexically inside a root before any syscall. */
function locate(
  roots: readonly FilesystemRoot[],
  requested: unknown,
): { requested: string; absolute: string; root: FilesystemRoot; parts: Part[] } {
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
  };
}

/** The real path must still be inside after the walk; catches a root or parent swapped for a symlink meanwhile. */
async function crossCheck(roots: readonly FilesystemRoot[], real: string, requested: string): Promise<void> {
  let again: string;
  try {
    again = await realpath(real);
  } catch (error) {
    throw describeFsError(error, requested);
  }
  if (!findContainingRoot(roots, again)) throw changedDuringCall(requested);
}

export function changedDuringCall(requested: string): FilesystemError {
  return new FilesystemError(
    "changed-during-call",
    `${quotePath(requested)} changed while the call ran (a directory or file was replaced, possibly by a symbolic link); nothing was done. Try again.`,
  );
}

/**
 * Resolve a path the model sent to a real path inside the allowed roots, or throw a FilesystemError. Never decodes
 * anything (`%2e%2e` and `．．` are literal names), never looks outside the roots, never follows a symlink out.
 */
export async function resolveConfinedPath(
  roots: readonly FilesystemRoot[],
  requestedPath: unknown,
  intent: PathIntent,
): Promise<ConfinedPath> {
  const { requested, absolute, root, parts } = locate(roots, requestedPath);

  if (intent === "entry") {
    if (roots.some((r) => r.real === absolute || r.configured === absolute) || parts.length === 0) {
      throw new FilesystemError(
        "invalid-path",
        `${quotePath(requested)} is an allowed directory itself; it cannot be moved or deleted.`,
      );
    }
    const parent = await walk(roots, root, parts.slice(0, -1), requested);
    if (!parent.exists) throw describeFsError({ code: "ENOENT" }, requested);
    if (!parent.stats.isDirectory()) throw describeFsError({ code: "ENOTDIR" }, requested);
    const name = parts[parts.length - 1]!.name;
    const real = path.join(parent.real, name);
    let stats: Stats;
    try {
      stats = await lstat(real);
    } catch (error) {
      throw describeFsError(error, requested);
    }
    const isSymlink = stats.isSymbolicLink();
    // The link itself is inside, but one pointing out is refused anyway: moving it elsewhere could change where a
    // relative target lands, and "no symlink out of the roots is ever acted on" is the simpler rule to trust.
    if (isSymlink) await walk(roots, root, parts, requested);
    await crossCheck(roots, parent.real, requested);
    return { requested, real, root: parent.root, exists: true, stats, isSymlink, missingParents: [] };
  }

  const walked = await walk(roots, root, parts, requested);
  if (walked.exists) {
    await crossCheck(roots, walked.real, requested);
    return {
      requested,
      real: walked.real,
      root: walked.root,
      exists: true,
      stats: walked.stats,
      isSymlink: false,
      missingParents: [],
    };
  }
  if (intent === "existing") throw describeFsError({ code: "ENOENT" }, requested);

  if (walked.remaining.some((part) => part.fromLink || part.name === "." || part.name === "..")) {
    throw new FilesystemError(
      "invalid-path",
      `${quotePath(requested)} goes through a symbolic link whose target does not exist; refusing to create anything through it.`,
    );
  }
  const missingParents: string[] = [];
  let cursor = walked.ancestor;
  for (const part of walked.remaining.slice(0, -1)) {
    cursor = path.join(cursor, part.name);
    missingParents.push(cursor);
  }
  const last = walked.remaining[walked.remaining.length - 1]!;
  await crossCheck(roots, walked.ancestor, requested);
  return {
    requested,
    real: path.join(cursor, last.name),
    root: walked.root,
    exists: false,
    stats: undefined,
    isSymlink: false,
    missingParents,
  };
}
