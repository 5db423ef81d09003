import { constants, type Dirent, type Stats } from "node:fs";
import { type FileHandle, mkdir, open, readdir } from "node:fs/promises";
import { type ConfinedPath, describeFsError, quotePath } from "./filesystem-confined-path.js";
import {
  changedDuringCall,
  type DirectoryHandle,
  type HandleScope,
  sameIdentity,
} from "./filesystem-directory-handle.js";
import { FilesystemError } from "./filesystem-errors.js";

// Absent on Windows; there the dev+ino re-check below is what narrows the race.
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

function notAFile(requested: string, stats: Stats): FilesystemError {
  const hint = stats.isDirectory() ? " (it is a directory; use list_directory)" : "";
  return new FilesystemError("not-a-file", `${quotePath(requested)} is not a regular file${hint}.`);
}

/**
 * A file with more than one name can be reached through a name inside the roots while another name is outside (a
 * hard link made to a file elsewhere), so reads and writes of such files are refused alike.
 */
export function refuseHardLinked(requested: string, stats: Stats, mode: "read" | "write"): void {
  if (stats.isFile() && stats.nlink > 1) {
    const why =
      mode === "write"
        ? "writing it would also change the other names"
        : "another name of the same file may be outside the allowed directories";
    throw new FilesystemError(
      "hard-linked",
      `${quotePath(requested)} has ${stats.nlink} hard links, and ${why}, so it is refused. ${mode === "write" ? "Delete it and write a new file instead." : "Copy it to a file of its own to read it."}`,
    );
  }
}

export interface OpenedFile {
  handle: FileHandle;
  stats: Stats;
}

/**
 * Open `name` in a checked directory without following a symlink, and check it is a regular file with one link
 * (and, with `expected`, the very file that was looked at). `write` opens read-write, creating the file when
 * `create` is set, and never truncates before the checks pass.
 */
export async function openFileIn(
  directory: DirectoryHandle,
  name: string,
  requested: string,
  options: { mode: "read" | "write"; create?: boolean; expected?: Stats },
): Promise<OpenedFile> {
  // O_NONBLOCK: should a FIFO be swapped in after a check, open() returns instead of blocking a pool thread.
  const flags =
    (options.mode === "read"
      ? constants.O_RDONLY
      : constants.O_RDWR | (options.create ? constants.O_CREAT : 0)) |
    O_NOFOLLOW |
    O_NONBLOCK;
  let handle: FileHandle;
  try {
    handle = await open(await directory.entry(name), flags, 0o666);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // The name was looked at and was no symlink, so ELOOP here means one was swapped in.
    if (code === "ELOOP" || code === "EMLINK") throw changedDuringCall(requested);
    throw describeFsError(error, requested);
  }
  try {
    const stats = await handle.stat();
    if (options.expected && !sameIdentity(stats, options.expected)) throw changedDuringCall(requested);
    if (!stats.isFile()) throw notAFile(requested, stats);
    refuseHardLinked(requested, stats, options.mode);
    await directory.confirm();
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** Open a resolved regular file (see openFileIn). For a `create` target, make its missing parents first. */
export async function openConfinedFile(
  scope: HandleScope,
  target: ConfinedPath,
  mode: "read" | "write",
  create = false,
): Promise<OpenedFile> {
  if (target.name === undefined || (target.stats && !target.stats.isFile())) {
    throw notAFile(target.requested, target.stats ?? target.parent.stats);
  }
  const directory = create ? await createMissingParents(scope, target) : target.parent;
  return await openFileIn(directory, target.name, target.requested, {
    mode,
    create,
    ...(target.stats ? { expected: target.stats } : {}),
  });
}

/** The resolved directory itself, opened (a root or `x/..` already is; otherwise its name is opened, no link followed). */
export async function openConfinedDirectory(
  scope: HandleScope,
  target: ConfinedPath,
): Promise<DirectoryHandle> {
  if (!target.stats?.isDirectory()) {
    throw new FilesystemError("not-a-directory", `${quotePath(target.requested)} is not a directory.`);
  }
  if (target.name === undefined) return target.parent;
  return scope.track(await target.parent.openChild(target.name, target.stats));
}

/** List an open directory (through its handle where the platform allows, see DirectoryHandle). */
export async function listDirectory(directory: DirectoryHandle): Promise<Dirent[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(await directory.self(), { withFileTypes: true });
  } catch (error) {
    throw describeFsError(error, directory.requested);
  }
  await directory.confirm();
  return entries;
}

/**
 * Create the missing parents of a `create` target one level at a time, each inside the one before (opened without
 * following links), and return the directory the target's name belongs in.
 */
export async function createMissingParents(
  scope: HandleScope,
  target: ConfinedPath,
): Promise<DirectoryHandle> {
  let directory = target.parent;
  for (const name of target.missingParents) {
    try {
      await mkdir(await directory.entry(name));
    } catch (error) {
      // Appeared meanwhile: openChild accepts it only as a real directory, never as a symlink.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw describeFsError(error, target.requested);
    }
    directory = scope.track(await directory.openChild(name, undefined));
  }
  return directory;
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
