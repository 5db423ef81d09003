import type { ToolAnnotations } from "@modelcontextprotocol/server";
import { z } from "zod";
import { FilesystemError } from "./filesystem-errors.js";
import { quotePath } from "./filesystem-quote-path.js";
import type { FilesystemRoot } from "./filesystem-root.js";

/** What the read and write tools share: the prepared roots, the size limit, and the sentence naming the roots. */
export interface FilesystemToolContext {
  readonly roots: readonly FilesystemRoot[];
  readonly maxReadBytes: number;
  /** "Only paths inside … can be used.", appended to every description. */
  readonly where: string;
}

export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  openWorldHint: false,
};
// Overwrites, moves and deletes cannot be undone by the model, so these are destructive whatever the deployment says.
export const DESTRUCTIVE: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: true,
  openWorldHint: false,
};

export const pathArg = (what: string) =>
  z
    .string()
    .describe(
      `${what}. Absolute, or relative to the first allowed directory (a relative path may also start with an allowed directory's own name). "~" and "%xx" are not expanded.`,
    );

export function positiveInt(max: number, description: string) {
  return z.number().int().min(1).max(max).describe(description);
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

export function binaryFile(requested: string, size: number): FilesystemError {
  return new FilesystemError(
    "binary-file",
    `${quotePath(requested)} looks like a binary file (${formatSize(size)}, not UTF-8 text); read_file only returns text.`,
  );
}
