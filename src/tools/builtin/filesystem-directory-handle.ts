import { constants, existsSync, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readlink, stat } from "node:fs/promises";
import path from "node:path";
import { describeFsError } from "./filesystem-describe-error.js";
import { FilesystemError } from "./filesystem-errors.js";
import { quotePath } from "./filesystem-quote-path.js";
import type { FilesystemRoot } from "./filesystem-root.js";

// Absent on Windows. There directories are not held open and each use re-checks the path instead (see docs/security.md, "Filesystem").
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_DIRECTORY = constants.O_DIRECTORY;

/** A file system object's identity: what an open handle and a later stat must agree on. */
export interface Identity {
  readonly dev: number;
  readonly ino: number;
}

export function sameIdentity(a: Identity, b: Identity): boolean {
  return a.dev === b.dev && a.ino === b.ino;
}

export function changedDuringCall(requested: string): FilesystemError {
  return new FilesystemError(
    "changed-during-call",
    `${quotePath(requested)} changed while the call ran (a directory or file was replaced, possibly by a symbolic link); nothing was done. Try again.`,
  );
}

/**
 * How names are looked up relative to a held directory. Linux: `/proc/self/fd/<fd>/<name>` is resolved by the kernel
 * from the open directory itself (openat semantics), so a parent swapped for a symlink after it was opened changes
 * nothing. Elsewhere: the directory's verified path, re-checked (same dev+ino, still a real directory) before each use;
 * a swap between that check and the system call remains possible there (docs/security.md, "Filesystem").
 */
export type LookupMode = "proc-fd" | "checked-path";

let lookupMode: LookupMode | undefined;

async function detectLookupMode(handle: FileHandle | undefined, identity: Identity): Promise<LookupMode> {
  if (process.platform !== "linux" || !handle || !existsSync("/proc/self/fd")) return "checked-path";
  try {
    // The magic link must lead to the very directory the descriptor holds (it does unless /proc is not procfs).
    return sameIdentity(await stat(`/proc/self/fd/${handle.fd}`), identity) ? "proc-fd" : "checked-path";
  } catch {
    return "checked-path";
  }
}

/** The mode in use (decided when the first root is opened). Exposed for tests and the README's claim. */
export function currentLookupMode(): LookupMode | undefined {
  return lookupMode;
}

/**
 * Tests only: run the portable `checked-path` mode on Linux to measure what other platforms get (undefined: detect
 * again). Not exported from the package.
 */
export function forceLookupMode(mode: LookupMode | undefined): void {
  lookupMode = mode;
}

/** Open a directory without following a symlink in the last component; undefined where directories cannot be opened. */
async function openDirectoryHandle(syscallPath: string): Promise<FileHandle | undefined> {
  if (O_DIRECTORY === undefined) return undefined;
  return await open(syscallPath, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
}

/**
 * A directory inside a root that was opened and checked, and the base for every name looked up under it. `path` is
 * where it is (for messages and results); the handle, not the path, is what system calls act on where possible.
 */
export class DirectoryHandle {
  #closed = false;

  private constructor(
    /** Real path when it was reached, shown to the model. */
    readonly path: string,
    /** The root it was reached from. */
    readonly root: FilesystemRoot,
    /** fstat of the open handle (lstat where none can be held). */
    readonly stats: Stats,
    readonly requested: string,
    readonly isRoot: boolean,
    readonly handle: FileHandle | undefined,
  ) {}

  /** Open an allowed directory and check it is still the directory configured (same dev+ino as at start). */
  static async openRoot(root: FilesystemRoot, requested: string): Promise<DirectoryHandle> {
    let handle: FileHandle | undefined;
    let stats: Stats;
    try {
      handle = await openDirectoryHandle(root.real);
      stats = handle ? await handle.stat() : await lstat(root.real);
    } catch (error) {
      await handle?.close();
      throw rootReplaced(root, (error as NodeJS.ErrnoException).code);
    }
    if (!stats.isDirectory() || !sameIdentity(stats, root.identity)) {
      await handle?.close();
      throw rootReplaced(root, undefined);
    }
    lookupMode ??= await detectLookupMode(handle, stats);
    return new DirectoryHandle(root.real, root, stats, requested, true, handle);
  }

  /**
   * Where a system call finds `name` in this directory (see LookupMode). Use it before this handle is closed: a closed
   * descriptor's number can be given to another open file.
   */
  async entry(name: string): Promise<string> {
    this.#assertOpen();
    if (lookupMode === "proc-fd" && this.handle) return `/proc/self/fd/${this.handle.fd}/${name}`;
    await this.#recheck();
    return path.join(this.path, name);
  }

  /** Where a system call finds this directory itself (to list it). */
  async self(): Promise<string> {
    this.#assertOpen();
    if (lookupMode === "proc-fd" && this.handle) return `/proc/self/fd/${this.handle.fd}`;
    await this.#recheck();
    return this.path;
  }

  /** lstat of `name` in this directory (the path mode checks the directory before and after). */
  async lstat(name: string): Promise<Stats> {
    const stats = await lstat(await this.entry(name));
    await this.confirm();
    return stats;
  }

  /** The target of the symlink `name` in this directory (the path mode checks the directory before and after). */
  async readlink(name: string): Promise<string> {
    const target = await readlink(await this.entry(name));
    await this.confirm();
    return target;
  }

  /** After acting through `self()`/`entry()` by path: the directory must still be the one checked. */
  async confirm(): Promise<void> {
    if (lookupMode !== "proc-fd" || !this.handle) await this.#recheck();
  }

  #assertOpen(): void {
    // A programming error, not a model's: fail loudly rather than look a name up in whatever now has this number.
    if (this.#closed) throw new Error(`DirectoryHandle for ${this.path} used after close`);
  }

  async #recheck(): Promise<void> {
    const now = await lstat(this.path).catch(() => undefined);
    if (!now?.isDirectory() || !sameIdentity(now, this.stats)) throw changedDuringCall(this.requested);
  }

  /**
   * Open the subdirectory `name` without following a symlink. With `expected`, it must be that very directory (a
   * swap between a look and the open is refused instead of used).
   */
  async openChild(name: string, expected: Identity | undefined): Promise<DirectoryHandle> {
    const where = await this.entry(name);
    let handle: FileHandle | undefined;
    let stats: Stats;
    try {
      handle = await openDirectoryHandle(where);
      stats = handle ? await handle.stat() : await lstat(where);
    } catch (error) {
      await handle?.close();
      const code = (error as NodeJS.ErrnoException).code;
      // ELOOP: a symlink is there now; ENOTDIR: something else is. Either way not what was checked.
      if (code === "ELOOP" || code === "ENOTDIR" || code === "ENOENT")
        throw changedDuringCall(this.requested);
      throw describeFsError(error, this.requested);
    }
    if (!stats.isDirectory() || (expected && !sameIdentity(stats, expected))) {
      await handle?.close();
      throw changedDuringCall(this.requested);
    }
    return new DirectoryHandle(path.join(this.path, name), this.root, stats, this.requested, false, handle);
  }

  /** Open `..`, which must be `parent` (the directory this one was reached from); kernel semantics, never lexical. */
  async openParent(parent: { identity: Identity; path: string }): Promise<DirectoryHandle> {
    let handle: FileHandle | undefined;
    let stats: Stats;
    try {
      if (lookupMode === "proc-fd" && this.handle) {
        handle = await openDirectoryHandle(`/proc/self/fd/${this.handle.fd}/..`);
        stats = await handle!.stat();
      } else {
        await this.#recheck();
        handle = await openDirectoryHandle(parent.path);
        stats = handle ? await handle.stat() : await lstat(parent.path);
      }
    } catch {
      await handle?.close();
      throw changedDuringCall(this.requested);
    }
    if (!stats.isDirectory() || !sameIdentity(stats, parent.identity)) {
      await handle?.close();
      throw changedDuringCall(this.requested);
    }
    const isRoot = parent.path === this.root.real;
    return new DirectoryHandle(parent.path, this.root, stats, this.requested, isRoot, handle);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.handle?.close();
  }
}

function rootReplaced(root: FilesystemRoot, code: string | undefined): FilesystemError {
  return new FilesystemError(
    "changed-during-call",
    `The allowed directory ${quotePath(root.real)} ${code === "ENOENT" ? "no longer exists" : "was replaced or moved since the tools were created"}; nothing was done. Restore it, or restart so the filesystem tools are created again.`,
  );
}

/** Every directory opened for one tool call, closed together when the call ends. */
export class HandleScope {
  readonly #opened: DirectoryHandle[] = [];

  track<T extends DirectoryHandle>(handle: T): T {
    this.#opened.push(handle);
    return handle;
  }

  async close(): Promise<void> {
    await Promise.all(this.#opened.splice(0).map((handle) => handle.close()));
  }
}

/** Run `action` with a scope whose directories are closed afterwards, whatever happens. */
export async function withHandleScope<T>(action: (scope: HandleScope) => Promise<T>): Promise<T> {
  const scope = new HandleScope();
  try {
    return await action(scope);
  } finally {
    await scope.close();
  }
}
