import type { Dirent } from "node:fs";
import path from "node:path";
import type { FilesystemRoot } from "./filesystem-confined-path.js";
import type { DirectoryHandle, HandleScope } from "./filesystem-directory-handle.js";
import type { GlobMatcher } from "./filesystem-glob.js";
import { listDirectory, openFileIn, readBytes } from "./filesystem-safe-io.js";
import { decodeText, splitLines } from "./filesystem-text.js";

export interface SearchFilesOptions {
  roots: readonly FilesystemRoot[];
  /** Opened, checked directories to search from (closed by the caller's scope). */
  starts: readonly DirectoryHandle[];
  scope: HandleScope;
  nameMatcher?: GlobMatcher;
  /** Substring looked for in file contents (already case-folded when not case-sensitive). */
  contains?: string;
  caseSensitive: boolean;
  maxResults: number;
  maxDepth: number;
  /** Files larger than this are not searched for content. */
  maxFileBytes: number;
  /** Stop walking after this many directory entries, whatever was found. */
  maxEntries: number;
  signal: AbortSignal;
}

export interface SearchMatch {
  path: string;
  type: "file" | "directory" | "symlink";
  /** Content matches: 1-based line number and the (shortened) line. */
  line?: number;
  text?: string;
}

export interface SearchFilesResult {
  matches: SearchMatch[];
  /** Why the search stopped early, if it did. */
  stoppedBecause?: "max-results" | "max-entries";
  /** Directories not descended into because of maxDepth. */
  depthLimited: number;
  skippedSymlinks: number;
  skippedLargeFiles: number;
  skippedBinaryFiles: number;
  entriesSeen: number;
}

const MAX_MATCHES_PER_FILE = 20;
const MAX_LINE_CHARS = 200;

function shorten(line: string, at: number, needleLength: number): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  const from = Math.max(0, Math.min(at - 60, line.length - MAX_LINE_CHARS));
  const cut = line.slice(from, from + MAX_LINE_CHARS);
  return `${from > 0 ? "…" : ""}${cut}${from + MAX_LINE_CHARS < line.length || needleLength > MAX_LINE_CHARS ? "…" : ""}`;
}

/** Content matches in one file, or a note why it was skipped. Opens it like read_file: in its directory, no link. */
async function searchContent(
  options: SearchFilesOptions,
  directory: DirectoryHandle,
  name: string,
  shownPath: string,
  result: SearchFilesResult,
): Promise<SearchMatch[]> {
  const needle = options.contains!;
  let opened: Awaited<ReturnType<typeof openFileIn>>;
  try {
    opened = await openFileIn(directory, name, shownPath, { mode: "read" });
  } catch {
    // Vanished, swapped or hard-linked: nothing to report, and no reason to fail the whole search.
    return [];
  }
  try {
    if (opened.stats.size > options.maxFileBytes) {
      result.skippedLargeFiles += 1;
      return [];
    }
    const text = decodeText(await readBytes(opened.handle, options.maxFileBytes));
    if (text === undefined) {
      result.skippedBinaryFiles += 1;
      return [];
    }
    const matches: SearchMatch[] = [];
    const lines = splitLines(text);
    for (let index = 0; index < lines.length && matches.length < MAX_MATCHES_PER_FILE; index++) {
      const line = lines[index]!;
      const at = (options.caseSensitive ? line : line.toLowerCase()).indexOf(needle);
      if (at !== -1)
        matches.push({
          path: shownPath,
          type: "file",
          line: index + 1,
          text: shorten(line, at, needle.length),
        });
    }
    return matches;
  } finally {
    await opened.handle.close();
  }
}

/** An open directory that queued subdirectories are reopened from; closed when the last of them was taken. */
interface Base {
  directory: DirectoryHandle;
  users: number;
  /** A start belongs to the caller's scope and stays open. */
  keep: boolean;
}

/** A directory still to search: `names` below an open base, each opened from the one before without following links. */
interface Pending {
  base: Base;
  names: string[];
  /** Path relative to the start, for glob patterns. */
  start: DirectoryHandle;
  depth: number;
}

/** Directories kept open for their queued subdirectories; past this, subdirectories are reopened from further up. */
const MAX_OPEN_BASES = 128;

async function release(base: Base, open: { count: number }): Promise<void> {
  base.users -= 1;
  if (base.users === 0 && !base.keep) {
    open.count -= 1;
    await base.directory.close();
  }
}

/** Open a pending directory from its base, one name at a time, never following a link. */
async function reopen(options: SearchFilesOptions, pending: Pending): Promise<DirectoryHandle> {
  let directory = pending.base.directory;
  for (const name of pending.names) {
    const next = options.scope.track(await directory.openChild(name, undefined));
    if (directory !== pending.base.directory) await directory.close();
    directory = next;
  }
  return directory;
}

/**
 * Breadth-first walk that never follows a symlink (a symlinked directory is neither entered nor searched, whether
 * it points inside or out, which also makes symlink cycles harmless). Every directory is opened from the one above
 * it without following links and listed through that handle, and every file is opened with the same checks as
 * read_file, so a directory swapped for a symlink meanwhile is never entered.
 */
export async function searchFiles(options: SearchFilesOptions): Promise<SearchFilesResult> {
  const result: SearchFilesResult = {
    matches: [],
    depthLimited: 0,
    skippedSymlinks: 0,
    skippedLargeFiles: 0,
    skippedBinaryFiles: 0,
    entriesSeen: 0,
  };
  const queue: Pending[] = options.starts.map((start) => ({
    base: { directory: start, users: 1, keep: true },
    names: [],
    start,
    depth: 0,
  }));
  const open = { count: 0 };
  const full = () => result.matches.length >= options.maxResults;

  while (queue.length > 0) {
    options.signal.throwIfAborted();
    const pending = queue.shift()!;
    let directory: DirectoryHandle | undefined;
    let entries: Dirent[];
    try {
      directory = await reopen(options, pending);
      entries = await listDirectory(directory);
    } catch {
      if (directory && directory !== pending.base.directory) await directory.close();
      await release(pending.base, open);
      continue;
    }
    // This directory becomes the base of its subdirectories while there is room; otherwise they reopen from its base.
    const own: Base | undefined =
      directory !== pending.base.directory && open.count < MAX_OPEN_BASES
        ? { directory, users: 1, keep: false }
        : undefined;
    if (own) open.count += 1;
    const current = directory;
    try {
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      for (const entry of entries) {
        result.entriesSeen += 1;
        if (result.entriesSeen > options.maxEntries) {
          result.stoppedBecause = "max-entries";
          return result;
        }
        const fullPath = path.join(current.path, entry.name);
        const relative = path.relative(pending.start.path, fullPath).split(path.sep).join("/");
        const type = entry.isSymbolicLink() ? "symlink" : entry.isDirectory() ? "directory" : "file";
        const nameMatches = options.nameMatcher ? options.nameMatcher(relative, entry.name) : true;

        if (type === "symlink") result.skippedSymlinks += 1;
        if (type === "directory") {
          if (pending.depth + 1 < options.maxDepth) {
            const base = own ?? pending.base;
            base.users += 1;
            queue.push({
              base,
              names: own ? [entry.name] : [...pending.names, entry.name],
              start: pending.start,
              depth: pending.depth + 1,
            });
          } else result.depthLimited += 1;
        }

        if (!nameMatches) continue;
        if (options.contains === undefined) {
          result.matches.push({ path: fullPath, type });
        } else if (type === "file" && entry.isFile()) {
          for (const match of await searchContent(options, current, entry.name, fullPath, result)) {
            if (full()) break;
            result.matches.push(match);
          }
        }
        if (full()) {
          result.stoppedBecause = "max-results";
          return result;
        }
      }
    } finally {
      if (own) await release(own, open);
      else if (current !== pending.base.directory) await current.close();
      await release(pending.base, open);
    }
  }
  return result;
}
