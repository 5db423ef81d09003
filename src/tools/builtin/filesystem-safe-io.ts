import { constants, type Dirent, type Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, readdir, realpath, stat } from "node:fs/promises";
import {
  type ConfinedPath,
  changedDuringCall,
  describeFsError,
  type FilesystemRoot,
  findContainingRoot,
  quotePath,
} from "./filesystem-confined-path.js";
import { FilesystemError } from "./filesystem-errors.js";

// Absent on Windows; there the realpath + inode re-check below is what narrows the race.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

/**
 * After opening, the path must still resolve inside the roots and to the very inode we hold. Node has no openat(),
 * so a parent swapped for a symlink between resolution and open cannot be prevented outright; this check makes the
 * call refuse instead of using what it opened.
 */
async function assertSameInode(
  roots: readonly FilesystemRoot[],
  real: string,
  held: Stats,
  requested: string,
): Promise<void> {
  let again: string;
  let now: Stats;
  try {
    again = await realpath(real);
    now = await stat(again);
  } catch {
    throw changedDuringCall(requested);
  }
  if (!findContainingRoot(roots, again) || now.ino !== held.ino || now.dev !== held.dev) {
    throw changedDuringCall(requested);
  }
}

function notAFile(requested: string, stats: Stats): FilesystemError {
  const hint = stats.isDirectory() ? " (it is a directory; use list_directory)" : "";
  return new FilesystemError("not-a-file", `${quotePath(requested)} is not a regular file${hint}.`);
}

export interface OpenedFile {
  handle: FileHandle;
  stats: Stats;
}

/**
 * Open a resolved regular file. O_NOFOLLOW makes the open fail if the final component became a symlink since it was
 * resolved; then the inode is re-checked. `write` opens read-write, creating the file when `create` is set, and never
 * truncates before the checks pass.
 */
export async function openConfinedFile(
  roots: readonly FilesystemRoot[],
  target: ConfinedPath,
  mode: "read" | "write",
  create = false,
): Promise<OpenedFile> {
  if (target.stats && !target.stats.isFile()) throw notAFile(target.requested, target.stats);
  // O_NONBLOCK: should a FIFO be swapped in after the check above, open() returns instead of blocking a pool thread.
  const flags =
    (mode === "read" ? constants.O_RDONLY : constants.O_RDWR | (create ? constants.O_CREAT : 0)) |
    O_NOFOLLOW |
    O_NONBLOCK;
  let handle: FileHandle;
  try {
    handle = await open(target.real, flags, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The resolved path had no symlink in it, so ELOOP here means one was swapped in.
    if (code === "ELOOP" || code === "EMLINK") throw changedDuringCall(target.requested);
    throw describeFsError(error, target.requested);
  }
  try {
    const stats = await handle.stat();
    await assertSameInode(roots, target.real, stats, target.requested);
    if (!stats.isFile()) throw notAFile(target.requested, stats);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Read a resolved directory, then confirm it is still the directory that was resolved (same inode, inside). */
export async function readConfinedDirectory(
  roots: readonly FilesystemRoot[],
  target: ConfinedPath,
): Promise<Dirent[]> {
  const before = target.stats;
  if (!before?.isDirectory()) {
    throw new FilesystemError("not-a-directory", `${quotePath(target.requested)} is not a directory.`);
  }
  let entries: Dirent[];
  try {
    entries = await readdir(target.real, { withFileTypes: true });
  } catch (error) {
    throw describeFsError(error, target.requested);
  }
  await assertSameInode(roots, target.real, before, target.requested);
  return entries;
}

/** Create the missing parents of a `create` target one level at a time, checking each one lands inside. */
export async function createMissingParents(
  roots: readonly FilesystemRoot[],
  target: ConfinedPath,
): Promise<void> {
  for (const directory of target.missingParents) {
    try {
      await mkdir(directory);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw describeFsError(error, target.requested);
      // Appeared meanwhile: acceptable only as a real directory, never as a symlink.
      const existing = await lstat(directory).catch(() => undefined);
      if (!existing?.isDirectory()) throw changedDuringCall(target.requested);
    }
    const real = await realpath(directory).catch(() => undefined);
    if (real !== directory || !findContainingRoot(roots, real)) throw changedDuringCall(target.requested);
  }
}

/** Read up to `limit` bytes from the start (or from `position`) of an open file. */
export async function readBytes(handle: FileHandle, limit: number, position = 0): Promise<Buffer> {
  const buffer = Buffer.alloc(limit);
  let filled = 0;
  while (filled < limit) {
    const { bytesRead } = await handle.read(buffer, filled, limit - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return buffer.subarray(0, filled);
}

/** Replace the whole content of a file opened for writing. */
export async function overwrite(handle: FileHandle, content: string): Promise<number> {
  const bytes = Buffer.from(content, "utf8");
  await handle.truncate(0);
  let written = 0;
  while (written < bytes.length) {
    const { bytesWritten } = await handle.write(bytes, written, bytes.length - written, written);
    written += bytesWritten;
  }
  await handle.sync().catch(() => undefined);
  return bytes.length;
}
