import type { Stats } from "node:fs";
import { lstat, rename, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import type { ToolAnnotations } from "@modelcontextprotocol/server";
import { z } from "zod";
import { defineTool } from "../define-tool.js";
import type { AnyToolDefinition, ToolContext } from "../tool-definition.js";
import {
  type ConfinedPath,
  changedDuringCall,
  describeFsError,
  type FilesystemRoot,
  prepareRoots,
  quotePath,
  resolveConfinedPath,
} from "./filesystem-confined-path.js";
import { unifiedDiff } from "./filesystem-diff.js";
import { FilesystemConfigError, FilesystemError } from "./filesystem-errors.js";
import { createGlobMatcher } from "./filesystem-glob.js";
import {
  createMissingParents,
  openConfinedFile,
  overwrite,
  readBytes,
  readConfinedDirectory,
} from "./filesystem-safe-io.js";
import { searchFiles } from "./filesystem-search.js";
import { BINARY_SNIFF_BYTES, decodeText, looksBinary, splitLines } from "./filesystem-text.js";

export interface FilesystemToolsOptions {
  /** Directories the tools may touch. Each must exist; symlinks in them are resolved once, here. */
  roots: string[];
  /** Offer write_file, edit_file, move_file and delete_file (always behind approval). Default false. */
  allowWrites?: boolean;
  /** Largest file read_file returns whole, and largest file searched or edited. Default 256 KiB. */
  maxReadBytes?: number;
}

const DEFAULT_MAX_READ_BYTES = 256 * 1024;
const MAX_LIST_ENTRIES = 1000;
const DEFAULT_SEARCH_RESULTS = 100;
const MAX_SEARCH_RESULTS = 1000;
const DEFAULT_SEARCH_DEPTH = 10;
const MAX_SEARCH_DEPTH = 32;
const MAX_SEARCH_ENTRIES = 50_000;
const MAX_EDITS = 50;

const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, openWorldHint: false };
// Overwrites, moves and deletes cannot be undone by the model, so these are destructive whatever the deployment says.
const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, openWorldHint: false };

function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function entryType(stats: Stats): string {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symlink";
  return "other";
}

const pathArg = (what: string) =>
  z
    .string()
    .describe(
      `${what}. Absolute, or relative to the first allowed directory. "~" and "%xx" are not expanded.`,
    );

function positiveInt(max: number, description: string) {
  return z.number().int().min(1).max(max).describe(description);
}

/** Read a resolved text file whole, refusing binaries and files over the limit. */
async function readWholeText(
  roots: readonly FilesystemRoot[],
  target: ConfinedPath,
  maxBytes: number,
  hint: string,
): Promise<string> {
  const { handle, stats } = await openConfinedFile(roots, target, "read");
  try {
    if (stats.size > maxBytes) {
      throw new FilesystemError(
        "too-large",
        `${quotePath(target.requested)} is ${formatSize(stats.size)}, over the ${formatSize(maxBytes)} limit; ${hint}`,
      );
    }
    const bytes = await readBytes(handle, maxBytes + 1);
    const text = decodeText(bytes);
    if (text === undefined) throw binaryFile(target.requested, stats.size);
    return text;
  } finally {
    await handle.close();
  }
}

function binaryFile(requested: string, size: number): FilesystemError {
  return new FilesystemError(
    "binary-file",
    `${quotePath(requested)} looks like a binary file (${formatSize(size)}, not UTF-8 text); read_file only returns text.`,
  );
}

interface LineSelection {
  head?: number;
  tail?: number;
  startLine?: number;
  endLine?: number;
}

function selectLines(text: string, selection: LineSelection, requested: string): string {
  const { head, tail, startLine, endLine } = selection;
  if (head === undefined && tail === undefined && startLine === undefined && endLine === undefined)
    return text;
  const lines = splitLines(text);
  if (head !== undefined) return lines.slice(0, head).join("\n");
  if (tail !== undefined) return lines.slice(Math.max(0, lines.length - tail)).join("\n");
  const from = startLine ?? 1;
  if (from > lines.length) {
    throw new FilesystemError(
      "invalid-path",
      `${quotePath(requested)} has ${lines.length} lines; startLine ${from} is past the end.`,
    );
  }
  return lines.slice(from - 1, endLine ?? lines.length).join("\n");
}

/** Line selection on a file too large to read whole: scan forward (head/range) or read the end (tail). */
async function readLargeSelection(
  roots: readonly FilesystemRoot[],
  target: ConfinedPath,
  selection: LineSelection,
  maxBytes: number,
  signal: AbortSignal,
): Promise<string> {
  const { handle, stats } = await openConfinedFile(roots, target, "read");
  try {
    if (looksBinary(await readBytes(handle, BINARY_SNIFF_BYTES)))
      throw binaryFile(target.requested, stats.size);
    const tooMuch = () =>
      new FilesystemError(
        "too-large",
        `The selected lines of ${quotePath(target.requested)} exceed the ${formatSize(maxBytes)} limit; ask for fewer lines.`,
      );
    if (selection.tail !== undefined) {
      const start = Math.max(0, stats.size - maxBytes);
      const text = decodeText(await readBytes(handle, maxBytes, start), true) ?? "";
      // The first line is probably cut by the window; drop it unless the window starts at the file's start.
      const lines = splitLines(text).slice(start > 0 ? 1 : 0);
      if (lines.length < selection.tail && start > 0) throw tooMuch();
      return lines.slice(lines.length - selection.tail).join("\n");
    }
    const from = selection.head !== undefined ? 1 : (selection.startLine ?? 1);
    const to = selection.head ?? selection.endLine ?? Number.POSITIVE_INFINITY;
    const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
    const chunk = Buffer.alloc(64 * 1024);
    const selected: string[] = [];
    let selectedBytes = 0;
    let carry = "";
    let lineNumber = 0;
    let position = 0;
    const take = (line: string): boolean => {
      lineNumber += 1;
      if (lineNumber >= from && lineNumber <= to) {
        const clean = line.endsWith("\r") ? line.slice(0, -1) : line;
        selectedBytes += Buffer.byteLength(clean) + 1;
        if (selectedBytes > maxBytes) throw tooMuch();
        selected.push(clean);
      }
      return lineNumber < to;
    };
    reading: while (true) {
      signal.throwIfAborted();
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, position);
      if (bytesRead === 0) break;
      position += bytesRead;
      carry += decoder.decode(chunk.subarray(0, bytesRead), { stream: true });
      let newline = carry.indexOf("\n");
      while (newline !== -1) {
        if (!take(carry.slice(0, newline))) break reading;
        carry = carry.slice(newline + 1);
        newline = carry.indexOf("\n");
      }
    }
    carry += decoder.decode();
    if (carry.length > 0 && lineNumber < to) take(carry);
    if (from > lineNumber) {
      throw new FilesystemError(
        "invalid-path",
        `${quotePath(target.requested)} has ${lineNumber} lines; startLine ${from} is past the end.`,
      );
    }
    return selected.join("\n");
  } finally {
    await handle.close();
  }
}

function refuseHardLinked(requested: string, stats: Stats): void {
  // Writing through one name of a hard-linked file changes every name, and the others may be outside the roots.
  if (stats.isFile() && stats.nlink > 1) {
    throw new FilesystemError(
      "hard-linked",
      `${quotePath(requested)} has ${stats.nlink} hard links, and writing it would also change the other names (which may be outside the allowed directories). Delete it and write a new file instead.`,
    );
  }
}

interface Edit {
  oldText: string;
  newText: string;
  replaceAll?: boolean;
}

function countOccurrences(text: string, needle: string): number {
  let count = 0;
  let at = text.indexOf(needle);
  while (at !== -1) {
    count += 1;
    at = text.indexOf(needle, at + needle.length);
  }
  return count;
}

/** Apply exact-text edits in order; each oldText must occur exactly once unless replaceAll is set. */
function applyEdits(
  original: string,
  edits: readonly Edit[],
  requested: string,
): { text: string; replacements: number } {
  let text = original;
  let replacements = 0;
  const crlf = original.includes("\r\n");
  edits.forEach((edit, index) => {
    const label = edits.length > 1 ? `edits[${index}].oldText` : "oldText";
    if (edit.oldText.length === 0) {
      throw new FilesystemError("edit-mismatch", `${label} is empty; give the exact text to replace.`);
    }
    let { oldText, newText } = edit;
    let count = countOccurrences(text, oldText);
    if (count === 0 && crlf && oldText.includes("\n") && !oldText.includes("\r\n")) {
      // Models write "\n"; the file uses CRLF. Match and replace in the file's own convention.
      oldText = oldText.replace(/\n/g, "\r\n");
      newText = newText.replace(/\r?\n/g, "\r\n");
      count = countOccurrences(text, oldText);
    }
    if (count === 0) {
      throw new FilesystemError(
        "edit-mismatch",
        `${label} was not found in ${quotePath(requested)}. Read the file again and copy the text exactly (whitespace and indentation matter); nothing was changed.`,
      );
    }
    if (count > 1 && !edit.replaceAll) {
      throw new FilesystemError(
        "edit-mismatch",
        `${label} occurs ${count} times in ${quotePath(requested)}. Include more surrounding lines so it is unique, or set replaceAll: true; nothing was changed.`,
      );
    }
    text = text.split(oldText).join(newText);
    replacements += count;
  });
  return { text, replacements };
}

/**
 * Filesystem tools confined to `roots`. Every path goes through `resolveConfinedPath` (no decoding, symlink-aware,
 * nothing outside the roots is ever looked at), and every open re-checks the target at use time.
 * Throws FilesystemConfigError for a root that does not exist or is not a directory.
 */
export function createFilesystemTools(options: FilesystemToolsOptions): AnyToolDefinition[] {
  const roots = prepareRoots(options.roots);
  const maxReadBytes = options.maxReadBytes ?? DEFAULT_MAX_READ_BYTES;
  if (!Number.isInteger(maxReadBytes) || maxReadBytes <= 0) {
    throw new FilesystemConfigError(
      `filesystem.maxReadBytes must be a positive integer, got ${maxReadBytes}.`,
    );
  }
  const rootList = roots.map((root) => root.real).join(", ");
  const where = `Only paths inside the allowed directories (${rootList}) can be used.`;
  const resolve = (requested: unknown, intent: "existing" | "entry" | "create") =>
    resolveConfinedPath(roots, requested, intent);

  const tools: AnyToolDefinition[] = [
    defineTool({
      name: "list_allowed_directories",
      title: "List allowed directories",
      description:
        "List the directories the filesystem tools may access. Relative paths resolve against the first one.",
      category: "filesystem",
      annotations: READ_ONLY,
      inputSchema: z.strictObject({}),
      handler: () =>
        `Allowed directories (relative paths start at the first):\n${roots.map((root) => root.real).join("\n")}`,
    }),

    defineTool({
      name: "list_directory",
      title: "List directory",
      description: `List the entries of a directory: [DIR] for directories, [FILE] with size for files, [LINK] for symbolic links. ${where}`,
      category: "filesystem",
      annotations: READ_ONLY,
      inputSchema: z.strictObject({
        path: pathArg("Directory to list; default: the first allowed directory").optional(),
      }),
      handler: async (args) => {
        const target = await resolve(args.path ?? roots[0]!.real, "existing");
        const entries = await readConfinedDirectory(roots, target);
        entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
        const lines: string[] = [];
        for (const entry of entries.slice(0, MAX_LIST_ENTRIES)) {
          if (entry.isDirectory()) lines.push(`[DIR]  ${entry.name}/`);
          else if (entry.isSymbolicLink()) lines.push(`[LINK] ${entry.name}`);
          else if (entry.isFile()) {
            const stats = await lstat(path.join(target.real, entry.name)).catch(() => undefined);
            lines.push(`[FILE] ${entry.name}${stats ? ` (${formatSize(stats.size)})` : ""}`);
          } else lines.push(`[OTHER] ${entry.name}`);
        }
        const more =
          entries.length > MAX_LIST_ENTRIES
            ? `\n… ${entries.length - MAX_LIST_ENTRIES} more entries not shown; use search_files to narrow down.`
            : "";
        const count = `${entries.length} ${entries.length === 1 ? "entry" : "entries"}`;
        return `${target.real} (${count})${lines.length > 0 ? `\n${lines.join("\n")}` : ""}${more}`;
      },
    }),

    defineTool({
      name: "read_file",
      title: "Read text file",
      description:
        `Read a UTF-8 text file. Optionally only the first lines (head), the last lines (tail) or a 1-based inclusive ` +
        `range (startLine/endLine). Files over ${formatSize(maxReadBytes)} must be read in parts; binary files are refused. ${where}`,
      category: "filesystem",
      annotations: READ_ONLY,
      inputSchema: z.strictObject({
        path: pathArg("File to read"),
        head: positiveInt(1_000_000, "Return only the first N lines.").optional(),
        tail: positiveInt(1_000_000, "Return only the last N lines.").optional(),
        startLine: positiveInt(100_000_000, "First line to return (1-based).").optional(),
        endLine: positiveInt(100_000_000, "Last line to return (inclusive).").optional(),
      }),
      handler: async (args, context: ToolContext) => {
        const selection: LineSelection = args;
        const modes = [
          selection.head !== undefined,
          selection.tail !== undefined,
          selection.startLine !== undefined || selection.endLine !== undefined,
        ].filter(Boolean).length;
        if (modes > 1) {
          throw new FilesystemError(
            "invalid-path",
            "Use only one of head, tail, or startLine/endLine per call.",
          );
        }
        if (
          selection.startLine !== undefined &&
          selection.endLine !== undefined &&
          selection.endLine < selection.startLine
        ) {
          throw new FilesystemError("invalid-path", "endLine must be greater than or equal to startLine.");
        }
        const target = await resolve(args.path, "existing");
        if (modes === 1 && (target.stats?.size ?? 0) > maxReadBytes) {
          return await readLargeSelection(roots, target, selection, maxReadBytes, context.signal);
        }
        const text = await readWholeText(
          roots,
          target,
          maxReadBytes,
          "read part of it with head, tail or startLine/endLine.",
        );
        return selectLines(text, selection, target.requested);
      },
    }),

    defineTool({
      name: "search_files",
      title: "Search files",
      description:
        `Find files and directories under a directory by name pattern (glob: "*.ts", "src/**/*.test.ts", "{a,b}.md") ` +
        `and/or by text they contain (plain substring, case-insensitive unless caseSensitive). Symbolic links are never ` +
        `followed. Results and depth are bounded. ${where}`,
      category: "filesystem",
      annotations: READ_ONLY,
      inputSchema: z.strictObject({
        path: pathArg("Directory to search under; default: every allowed directory").optional(),
        pattern: z
          .string()
          .describe('Glob for names ("*.md"); with a "/" it matches the relative path.')
          .optional(),
        contains: z
          .string()
          .min(1)
          .describe("Text that matching files must contain (reported per line).")
          .optional(),
        caseSensitive: z
          .boolean()
          .describe("Match pattern and contains case-sensitively (default false).")
          .optional(),
        maxResults: positiveInt(
          MAX_SEARCH_RESULTS,
          `Most results to return (default ${DEFAULT_SEARCH_RESULTS}).`,
        ).optional(),
        maxDepth: positiveInt(
          MAX_SEARCH_DEPTH,
          `Directory levels to descend (default ${DEFAULT_SEARCH_DEPTH}).`,
        ).optional(),
      }),
      handler: async (args, context: ToolContext) => {
        if (args.pattern === undefined && args.contains === undefined) {
          throw new FilesystemError(
            "invalid-path",
            'Give a name pattern (e.g. "*.ts"), a contains text, or both.',
          );
        }
        const caseSensitive = args.caseSensitive ?? false;
        const starts =
          args.path === undefined
            ? await Promise.all(roots.map((root) => resolve(root.real, "existing")))
            : [await resolve(args.path, "existing")];
        for (const start of starts) {
          if (!start.stats?.isDirectory()) {
            throw new FilesystemError(
              "not-a-directory",
              `${quotePath(start.requested)} is not a directory to search in.`,
            );
          }
        }
        const maxResults = args.maxResults ?? DEFAULT_SEARCH_RESULTS;
        const found = await searchFiles({
          roots,
          starts,
          caseSensitive,
          maxResults,
          maxDepth: args.maxDepth ?? DEFAULT_SEARCH_DEPTH,
          maxFileBytes: maxReadBytes,
          maxEntries: MAX_SEARCH_ENTRIES,
          signal: context.signal,
          ...(args.pattern !== undefined
            ? { nameMatcher: createGlobMatcher(args.pattern, caseSensitive) }
            : {}),
          ...(args.contains !== undefined
            ? { contains: caseSensitive ? args.contains : args.contains.toLowerCase() }
            : {}),
        });
        const lines = found.matches.map((match) =>
          match.line !== undefined
            ? `${match.path}:${match.line}: ${match.text}`
            : `${match.path}${match.type === "directory" ? "/" : match.type === "symlink" ? " (symlink)" : ""}`,
        );
        const notes: string[] = [];
        if (found.stoppedBecause === "max-results") {
          notes.push(`Stopped at ${maxResults} results; narrow the pattern or raise maxResults.`);
        }
        if (found.stoppedBecause === "max-entries") {
          notes.push(`Stopped after looking at ${MAX_SEARCH_ENTRIES} entries; search a smaller directory.`);
        }
        if (found.depthLimited > 0) {
          notes.push(`${found.depthLimited} directories below maxDepth were not searched.`);
        }
        const skipped = [
          found.skippedLargeFiles > 0
            ? `${found.skippedLargeFiles} files over ${formatSize(maxReadBytes)}`
            : "",
          found.skippedBinaryFiles > 0 ? `${found.skippedBinaryFiles} binary files` : "",
        ].filter(Boolean);
        if (skipped.length > 0) notes.push(`Content not searched in ${skipped.join(" and ")}.`);
        const head =
          found.matches.length === 0
            ? "No matches."
            : `${found.matches.length} ${found.matches.length === 1 ? "match" : "matches"}:`;
        return [head, ...lines, ...notes].join("\n");
      },
    }),

    defineTool({
      name: "file_info",
      title: "File information",
      description: `Stat a file or directory: type, size, times, permissions, and whether it is a symbolic link. ${where}`,
      category: "filesystem",
      annotations: READ_ONLY,
      inputSchema: z.strictObject({ path: pathArg("File or directory to describe") }),
      handler: async (args) => {
        const entry = await resolve(args.path, "entry").catch(async (error: unknown) => {
          // A root itself is not an "entry" (it has no parent inside the roots) but may be described.
          if (error instanceof FilesystemError && error.code === "invalid-path") return undefined;
          throw error;
        });
        const target = await resolve(args.path, "existing");
        const stats = target.stats!;
        return {
          path: target.real,
          type: entryType(stats),
          size: stats.size,
          modified: stats.mtime.toISOString(),
          created: stats.birthtime.toISOString(),
          accessed: stats.atime.toISOString(),
          permissions: (stats.mode & 0o7777).toString(8).padStart(4, "0"),
          isSymlink: entry?.isSymlink ?? false,
          ...(entry?.isSymlink ? { linkPath: entry.real } : {}),
        };
      },
    }),
  ];

  if (!options.allowWrites) return tools;

  // Writes: annotations and requiresApproval are fixed here on purpose, so no deployment option can drop approval.
  const writeOptions = { category: "filesystem", annotations: DESTRUCTIVE, requiresApproval: true } as const;

  tools.push(
    defineTool({
      name: "write_file",
      title: "Write file",
      description: `Create a file or replace its whole content with the given UTF-8 text; missing parent directories are created. Needs approval. ${where}`,
      ...writeOptions,
      annotations: { ...DESTRUCTIVE, idempotentHint: true },
      inputSchema: z.strictObject({
        path: pathArg("File to write"),
        content: z.string().describe("The complete new content of the file."),
      }),
      describeDryRun: (args) =>
        `would write ${Buffer.byteLength(String(args.content ?? ""))} bytes to ${JSON.stringify(args.path)}`,
      handler: async (args) => {
        const target = await resolve(args.path, "create");
        if (target.exists && target.stats?.isDirectory()) {
          throw new FilesystemError(
            "not-a-file",
            `${quotePath(args.path)} is a directory; give a file path.`,
          );
        }
        await createMissingParents(roots, target);
        const { handle, stats } = await openConfinedFile(roots, target, "write", true);
        try {
          refuseHardLinked(args.path, stats);
          const bytes = await overwrite(handle, args.content);
          return `${target.exists ? "Replaced" : "Created"} ${target.real} (${bytes} bytes).`;
        } finally {
          await handle.close();
        }
      },
    }),

    defineTool({
      name: "edit_file",
      title: "Edit file",
      description:
        `Replace exact text in a text file. Each oldText must appear exactly once (or set replaceAll); edits apply in ` +
        `order. Returns a unified diff; with dryRun: true only the diff is returned and nothing is written. Needs approval. ${where}`,
      ...writeOptions,
      inputSchema: z.strictObject({
        path: pathArg("File to edit"),
        edits: z
          .array(
            z.strictObject({
              oldText: z.string().min(1).describe("Exact text to find (copy it from read_file)."),
              newText: z.string().describe("Text to put in its place."),
              replaceAll: z
                .boolean()
                .describe("Replace every occurrence instead of requiring one.")
                .optional(),
            }),
          )
          .min(1)
          .max(MAX_EDITS)
          .describe("Replacements, applied in order."),
        dryRun: z.boolean().describe("Only show the diff; change nothing.").optional(),
      }),
      describeDryRun: (args) =>
        `would apply ${Array.isArray(args.edits) ? args.edits.length : 0} edit(s) to ${JSON.stringify(args.path)}`,
      handler: async (args) => {
        const target = await resolve(args.path, "existing");
        const { handle, stats } = await openConfinedFile(roots, target, args.dryRun ? "read" : "write");
        try {
          if (!args.dryRun) refuseHardLinked(args.path, stats);
          if (stats.size > maxReadBytes) {
            throw new FilesystemError(
              "too-large",
              `${quotePath(args.path)} is ${formatSize(stats.size)}, over the ${formatSize(maxReadBytes)} limit for edits.`,
            );
          }
          const original = decodeText(await readBytes(handle, maxReadBytes + 1));
          if (original === undefined) throw binaryFile(args.path, stats.size);
          const { text, replacements } = applyEdits(original, args.edits, args.path);
          const label = path.relative(target.root.real, target.real) || path.basename(target.real);
          const diff = unifiedDiff(original, text, label);
          const summary = `${replacements} replacement${replacements === 1 ? "" : "s"}`;
          if (args.dryRun) return `Dry run, nothing written: ${target.real} (${summary})\n${diff}`;
          await overwrite(handle, text);
          return `Edited ${target.real} (${summary})\n${diff}`;
        } finally {
          await handle.close();
        }
      },
    }),

    defineTool({
      name: "move_file",
      title: "Move or rename",
      description: `Move or rename a file or directory. The destination must not exist; missing parent directories are created. Needs approval. ${where}`,
      ...writeOptions,
      inputSchema: z.strictObject({
        source: pathArg("File or directory to move"),
        destination: pathArg("New path (must not exist yet)"),
      }),
      describeDryRun: (args) =>
        `would move ${JSON.stringify(args.source)} to ${JSON.stringify(args.destination)}`,
      handler: async (args) => {
        const source = await resolve(args.source, "entry");
        const destination = await resolve(args.destination, "create");
        if (destination.exists) {
          throw new FilesystemError(
            "already-exists",
            `${quotePath(args.destination)} already exists; move_file never overwrites. Delete it first or pick another name.`,
          );
        }
        if (source.stats?.isDirectory() && (destination.real + path.sep).startsWith(source.real + path.sep)) {
          throw new FilesystemError("invalid-path", `${quotePath(args.source)} cannot be moved into itself.`);
        }
        await createMissingParents(roots, destination);
        // rename() acts on names and never follows a symlink at either end; re-check both ends right before it.
        const [sourceNow, destinationNow] = await Promise.all([
          lstat(source.real).catch(() => undefined),
          lstat(destination.real).catch(() => undefined),
        ]);
        if (!sourceNow || sourceNow.ino !== source.stats?.ino) throw changedDuringCall(args.source);
        if (destinationNow) throw changedDuringCall(args.destination);
        try {
          await rename(source.real, destination.real);
        } catch (error) {
          throw describeFsError(error, args.source);
        }
        return `Moved ${source.real} to ${destination.real}.`;
      },
    }),

    defineTool({
      name: "delete_file",
      title: "Delete file",
      description: `Delete a file, a symbolic link (not its target) or an empty directory. Needs approval. ${where}`,
      ...writeOptions,
      inputSchema: z.strictObject({ path: pathArg("File, symbolic link or empty directory to delete") }),
      describeDryRun: (args) => `would delete ${JSON.stringify(args.path)}`,
      handler: async (args) => {
        const target = await resolve(args.path, "entry");
        const now = await lstat(target.real).catch(() => undefined);
        if (!now || now.ino !== target.stats?.ino) throw changedDuringCall(args.path);
        try {
          if (now.isDirectory()) await rmdir(target.real);
          else await unlink(target.real);
        } catch (error) {
          throw describeFsError(error, args.path);
        }
        return `Deleted ${target.real}${now.isDirectory() ? "/" : ""}.`;
      },
    }),
  );
  return tools;
}
