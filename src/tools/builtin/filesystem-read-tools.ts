import type { Stats } from "node:fs";
import { z } from "zod";
import { defineTool } from "../define-tool.js";
import type { AnyToolDefinition, ToolContext } from "../tool-definition.js";
import { quotePath, resolveConfinedPath } from "./filesystem-confined-path.js";
import { withHandleScope } from "./filesystem-directory-handle.js";
import { FilesystemError } from "./filesystem-errors.js";
import { createGlobMatcher } from "./filesystem-glob.js";
import {
  checkLineSelection,
  type LineSelection,
  readLargeSelection,
  selectLines,
} from "./filesystem-line-selection.js";
import { listDirectory, openConfinedDirectory, openConfinedFile, readBytes } from "./filesystem-safe-io.js";
import { searchFiles } from "./filesystem-search.js";
import { decodeText } from "./filesystem-text.js";
import {
  binaryFile,
  type FilesystemToolContext,
  formatSize,
  pathArg,
  positiveInt,
  READ_ONLY,
} from "./filesystem-tool-context.js";

const MAX_LIST_ENTRIES = 1000;
const DEFAULT_SEARCH_RESULTS = 100;
const MAX_SEARCH_RESULTS = 1000;
const DEFAULT_SEARCH_DEPTH = 10;
const MAX_SEARCH_DEPTH = 32;
const MAX_SEARCH_ENTRIES = 50_000;

function entryType(stats: Stats): string {
  if (stats.isFile()) return "file";
  if (stats.isDirectory()) return "directory";
  if (stats.isSymbolicLink()) return "symlink";
  return "other";
}

/** list_allowed_directories, list_directory, read_file, search_files and file_info. */
export function createReadTools(context: FilesystemToolContext): AnyToolDefinition[] {
  const { roots, maxReadBytes, where } = context;
  return [
    defineTool({
      name: "list_allowed_directories",
      title: "List allowed directories",
      description:
        "List the directories the filesystem tools may access. Relative paths resolve against the first one, or against the one whose name they start with.",
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
      handler: (args) =>
        withHandleScope(async (scope) => {
          const target = await resolveConfinedPath(scope, roots, args.path ?? roots[0]!.real, "existing");
          const directory = await openConfinedDirectory(scope, target);
          const entries = await listDirectory(directory);
          entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
          const lines: string[] = [];
          for (const entry of entries.slice(0, MAX_LIST_ENTRIES)) {
            if (entry.isDirectory()) lines.push(`[DIR]  ${entry.name}/`);
            else if (entry.isSymbolicLink()) lines.push(`[LINK] ${entry.name}`);
            else if (entry.isFile()) {
              const stats = await directory.lstat(entry.name).catch(() => undefined);
              lines.push(`[FILE] ${entry.name}${stats ? ` (${formatSize(stats.size)})` : ""}`);
            } else lines.push(`[OTHER] ${entry.name}`);
          }
          const more =
            entries.length > MAX_LIST_ENTRIES
              ? `\n… ${entries.length - MAX_LIST_ENTRIES} more entries not shown; use search_files to narrow down.`
              : "";
          const count = `${entries.length} ${entries.length === 1 ? "entry" : "entries"}`;
          return `${target.real} (${count})${lines.length > 0 ? `\n${lines.join("\n")}` : ""}${more}`;
        }),
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
      handler: (args, toolContext: ToolContext) =>
        withHandleScope(async (scope) => {
          const selection: LineSelection = args;
          const selective = checkLineSelection(selection);
          const target = await resolveConfinedPath(scope, roots, args.path, "existing");
          const opened = await openConfinedFile(scope, target, "read");
          try {
            if (selective && opened.stats.size > maxReadBytes) {
              return await readLargeSelection(
                opened,
                target.requested,
                selection,
                maxReadBytes,
                toolContext.signal,
              );
            }
            if (opened.stats.size > maxReadBytes) {
              throw new FilesystemError(
                "too-large",
                `${quotePath(target.requested)} is ${formatSize(opened.stats.size)}, over the ${formatSize(maxReadBytes)} limit; read part of it with head, tail or startLine/endLine.`,
              );
            }
            const text = decodeText(await readBytes(opened.handle, maxReadBytes + 1));
            if (text === undefined) throw binaryFile(target.requested, opened.stats.size);
            return selectLines(text, selection, target.requested);
          } finally {
            await opened.handle.close();
          }
        }),
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
      handler: (args, toolContext: ToolContext) =>
        withHandleScope(async (scope) => {
          if (args.pattern === undefined && args.contains === undefined) {
            throw new FilesystemError(
              "invalid-argument",
              'Give a name pattern (e.g. "*.ts"), a contains text, or both.',
            );
          }
          const caseSensitive = args.caseSensitive ?? false;
          const requestedStarts = args.path === undefined ? roots.map((root) => root.real) : [args.path];
          const starts = [];
          for (const requested of requestedStarts) {
            const start = await resolveConfinedPath(scope, roots, requested, "existing");
            if (!start.stats?.isDirectory()) {
              throw new FilesystemError(
                "not-a-directory",
                `${quotePath(start.requested)} is not a directory to search in.`,
              );
            }
            starts.push(await openConfinedDirectory(scope, start));
          }
          const maxResults = args.maxResults ?? DEFAULT_SEARCH_RESULTS;
          const found = await searchFiles({
            roots,
            starts,
            scope,
            caseSensitive,
            maxResults,
            maxDepth: args.maxDepth ?? DEFAULT_SEARCH_DEPTH,
            maxFileBytes: maxReadBytes,
            maxEntries: MAX_SEARCH_ENTRIES,
            signal: toolContext.signal,
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
        }),
    }),

    defineTool({
      name: "file_info",
      title: "File information",
      description: `Stat a file or directory: type, size, times, permissions, and whether it is a symbolic link. ${where}`,
      category: "filesystem",
      annotations: READ_ONLY,
      inputSchema: z.strictObject({ path: pathArg("File or directory to describe") }),
      handler: (args) =>
        withHandleScope(async (scope) => {
          const entry = await resolveConfinedPath(scope, roots, args.path, "entry").catch(
            (error: unknown) => {
              // A root itself is not an "entry" (it has no parent inside the roots) but may be described.
              if (error instanceof FilesystemError && error.code === "invalid-path") return undefined;
              throw error;
            },
          );
          const target = await resolveConfinedPath(scope, roots, args.path, "existing");
          // Looked at relative to its checked, open directory during resolution: never re-resolved by path.
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
        }),
    }),
  ];
}
