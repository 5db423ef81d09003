import type { AnyToolDefinition } from "../tool-definition.js";
import { prepareRoots } from "./filesystem-confined-path.js";
import { FilesystemConfigError } from "./filesystem-errors.js";
import { createReadTools } from "./filesystem-read-tools.js";
import { createWriteTools } from "./filesystem-write-tools.js";

export interface FilesystemToolsOptions {
  /** Directories the tools may touch. Each must exist; symlinks in them are resolved once, here. */
  roots: string[];
  /** Offer write_file, edit_file, move_file and delete_file (always behind approval). Default false. */
  allowWrites?: boolean;
  /** Largest file read_file returns whole, and largest file searched or edited. Default 256 KiB. */
  maxReadBytes?: number;
}

const DEFAULT_MAX_READ_BYTES = 256 * 1024;

/**
 * Filesystem tools confined to `roots`. Every path is resolved by `resolveConfinedPath` from an opened root, one
 * open directory at a time (no decoding, symlink-aware, nothing outside the roots is ever looked at), and every
 * operation acts by name inside the directory that was checked (see filesystem-directory-handle.ts).
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
  const context = {
    roots,
    maxReadBytes,
    where: `Only paths inside the allowed directories (${rootList}) can be used.`,
  };
  const tools = createReadTools(context);
  if (options.allowWrites) tools.push(...createWriteTools(context));
  return tools;
}
