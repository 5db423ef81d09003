import type { Dirent } from "node:fs";
import { lstat, readdir, realpath } from "node:fs/promises";
import path from "node:path";
import { type ConfinedPath, type FilesystemRoot, findContainingRoot } from "./filesystem-confined-path.js";
import type { GlobMatcher } from "./filesystem-glob.js";
import { openConfinedFile, readBytes } from "./filesystem-safe-io.js";
import { decodeText, splitLines } from "./filesystem-text.js";

export interface SearchFilesOptions {
  roots: readonly FilesystemRoot[];
  /** Resolved directories to search from. */
  starts: readonly ConfinedPath[];
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

/** Content matches in one file, or a note why it was skipped. Reads through the same checked open as read_file. */
async function searchContent(
  options: SearchFilesOptions,
  file: ConfinedPath,
  result: SearchFilesResult,
): Promise<SearchMatch[]> {
  const needle = options.contains!;
  let opened: Awaited<ReturnType<typeof openConfinedFile>>;
  try {
    opened = await openConfinedFile(options.roots, file, "read");
  } catch {
    // Vanished or swapped since listing: nothing to report, and no reason to fail the whole search.
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
          path: file.real,
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

/**
 * Breadth-first walk that never follows a symlink (a symlinked directory is neither entered nor searched, whether
 * it points inside or out, which also makes symlink cycles harmless). Every directory is re-checked to be inside the
 * roots after it is read, and every file is opened with the same checks as read_file.
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
  const queue = options.starts.map((start) => ({ directory: start.real, base: start.real, depth: 0 }));
  const full = () => result.matches.length >= options.maxResults;

  while (queue.length > 0) {
    options.signal.throwIfAborted();
    const { directory, base, depth } = queue.shift()!;
    let entries: Dirent[];
    try {
      entries = await readdir(directory, { withFileTypes: true });
      // The directory was reached through real directories only; if it resolves elsewhere now, it was swapped.
      if (!findContainingRoot(options.roots, await realpath(directory))) continue;
    } catch {
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      result.entriesSeen += 1;
      if (result.entriesSeen > options.maxEntries) {
        result.stoppedBecause = "max-entries";
        return result;
      }
      const fullPath = path.join(directory, entry.name);
      const relative = path.relative(base, fullPath).split(path.sep).join("/");
      const type = entry.isSymbolicLink() ? "symlink" : entry.isDirectory() ? "directory" : "file";
      const nameMatches = options.nameMatcher ? options.nameMatcher(relative, entry.name) : true;

      if (type === "symlink") result.skippedSymlinks += 1;
      if (type === "directory") {
        if (depth + 1 < options.maxDepth) queue.push({ directory: fullPath, base, depth: depth + 1 });
        else result.depthLimited += 1;
      }

      if (!nameMatches) continue;
      if (options.contains === undefined) {
        result.matches.push({ path: fullPath, type });
      } else if (type === "file" && entry.isFile()) {
        const stats = await lstat(fullPath).catch(() => undefined);
        if (!stats?.isFile()) continue;
        const root = findContainingRoot(options.roots, fullPath);
        if (!root) continue;
        const file: ConfinedPath = {
          requested: fullPath,
          real: fullPath,
          root,
          exists: true,
          stats,
          isSymlink: false,
          missingParents: [],
        };
        for (const match of await searchContent(options, file, result)) {
          if (full()) break;
          result.matches.push(match);
        }
      }
      if (full()) {
        result.stoppedBecause = "max-results";
        return result;
      }
    }
  }
  return result;
}
