import { lstat, rename, rmdir, unlink } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { defineTool } from "../define-tool.js";
import type { AnyToolDefinition } from "../tool-definition.js";
import {
  type ConfinedPath,
  changedDuringCall,
  describeFsError,
  quotePath,
  resolveConfinedPath,
} from "./filesystem-confined-path.js";
import { unifiedDiff } from "./filesystem-diff.js";
import { sameIdentity, withHandleScope } from "./filesystem-directory-handle.js";
import { FilesystemError } from "./filesystem-errors.js";
import { createMissingParents, openConfinedFile, overwrite, readBytes } from "./filesystem-safe-io.js";
import { decodeText } from "./filesystem-text.js";
import { applyEdits } from "./filesystem-text-edits.js";
import {
  binaryFile,
  DESTRUCTIVE,
  type FilesystemToolContext,
  formatSize,
  pathArg,
} from "./filesystem-tool-context.js";

const MAX_EDITS = 50;

/** The entry must still be the one resolved (same dev+ino), looked at again through its open directory. */
async function assertUnchanged(target: ConfinedPath, where: string): Promise<void> {
  const now = await lstat(where).catch(() => undefined);
  if (!now || !target.stats || !sameIdentity(now, target.stats)) throw changedDuringCall(target.requested);
}

/** write_file, edit_file, move_file and delete_file. Every change is made by name inside a checked, open directory. */
export function createWriteTools(context: FilesystemToolContext): AnyToolDefinition[] {
  const { roots, maxReadBytes, where } = context;
  // Annotations and requiresApproval are fixed here on purpose, so no deployment option can drop approval.
  const writeOptions = { category: "filesystem", annotations: DESTRUCTIVE, requiresApproval: true } as const;

  return [
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
      handler: (args) =>
        withHandleScope(async (scope) => {
          const target = await resolveConfinedPath(scope, roots, args.path, "create");
          if (target.exists && target.stats?.isDirectory()) {
            throw new FilesystemError(
              "not-a-file",
              `${quotePath(args.path)} is a directory; give a file path.`,
            );
          }
          const { handle } = await openConfinedFile(scope, target, "write", true);
          try {
            const bytes = await overwrite(handle, args.content);
            return `${target.exists ? "Replaced" : "Created"} ${target.real} (${bytes} bytes).`;
          } finally {
            await handle.close();
          }
        }),
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
      handler: (args) =>
        withHandleScope(async (scope) => {
          const target = await resolveConfinedPath(scope, roots, args.path, "existing");
          const { handle, stats } = await openConfinedFile(scope, target, args.dryRun ? "read" : "write");
          try {
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
        }),
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
      handler: (args) =>
        withHandleScope(async (scope) => {
          const source = await resolveConfinedPath(scope, roots, args.source, "entry");
          const destination = await resolveConfinedPath(scope, roots, args.destination, "create");
          if (destination.exists) {
            throw new FilesystemError(
              "already-exists",
              `${quotePath(args.destination)} already exists; move_file never overwrites. Delete it first or pick another name.`,
            );
          }
          if (
            source.stats?.isDirectory() &&
            (destination.real + path.sep).startsWith(source.real + path.sep)
          ) {
            throw new FilesystemError(
              "invalid-path",
              `${quotePath(args.source)} cannot be moved into itself.`,
            );
          }
          const into = await createMissingParents(scope, destination);
          // rename() acts on names in the two open directories and never follows a symlink at either end; re-check
          // both names right before it (the kernel refuses a directory moved into itself on its own).
          const from = await source.parent.entry(source.name!);
          const to = await into.entry(destination.name!);
          await assertUnchanged(source, from);
          if (
            await lstat(to).then(
              () => true,
              () => false,
            )
          )
            throw changedDuringCall(args.destination);
          try {
            await rename(from, to);
          } catch (error) {
            throw describeFsError(error, args.source);
          }
          return `Moved ${source.real} to ${destination.real}.`;
        }),
    }),

    defineTool({
      name: "delete_file",
      title: "Delete file",
      description: `Delete a file, a symbolic link (not its target) or an empty directory. Needs approval. ${where}`,
      ...writeOptions,
      inputSchema: z.strictObject({ path: pathArg("File, symbolic link or empty directory to delete") }),
      describeDryRun: (args) => `would delete ${JSON.stringify(args.path)}`,
      handler: (args) =>
        withHandleScope(async (scope) => {
          const target = await resolveConfinedPath(scope, roots, args.path, "entry");
          const at = await target.parent.entry(target.name!);
          await assertUnchanged(target, at);
          const isDirectory = target.stats!.isDirectory();
          try {
            if (isDirectory) await rmdir(at);
            else await unlink(at);
          } catch (error) {
            throw describeFsError(error, args.path);
          }
          return `Deleted ${target.real}${isDirectory ? "/" : ""}.`;
        }),
    }),
  ];
}
