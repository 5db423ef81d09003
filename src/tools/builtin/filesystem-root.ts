import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { FilesystemConfigError } from "./filesystem-errors.js";

// C0 and C1 controls and DEL: never part of a name a model should be sending, and NUL truncates paths in C code.
export const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/** An allowed directory. Containment is always decided on `real`; `configured` only helps recognise absolute paths. */
export interface FilesystemRoot {
  /** The root as configured, made absolute (it may contain symlinks, e.g. macOS `/tmp`). */
  readonly configured: string;
  /** Its real path, taken once at creation. */
  readonly real: string;
  /** Its dev+ino at creation: every call opens `real` and checks it is still this directory. */
  readonly identity: { readonly dev: number; readonly ino: number };
}

/** `candidate` is `directory` or below it. Compares whole components, so `/root-evil` is not inside `/root`. */
export function isInsideDirectory(candidate: string, directory: string): boolean {
  if (candidate === directory) return true;
  const prefix = directory.endsWith(path.sep) ? directory : directory + path.sep;
  return candidate.startsWith(prefix);
}

/** The innermost root whose real path contains `real`, if any. */
export function findContainingRoot(
  roots: readonly FilesystemRoot[],
  real: string,
): FilesystemRoot | undefined {
  let best: FilesystemRoot | undefined;
  for (const root of roots) {
    if (isInsideDirectory(real, root.real) && (!best || root.real.length > best.real.length)) best = root;
  }
  return best;
}

/** Realpath the configured roots once. A root that is missing or not a directory is a configuration error. */
export function prepareRoots(roots: readonly string[]): FilesystemRoot[] {
  if (!Array.isArray(roots) || roots.length === 0) {
    throw new FilesystemConfigError(
      'filesystem.roots must list at least one directory, e.g. {"filesystem": {"roots": ["./workspace"]}}.',
    );
  }
  const prepared: FilesystemRoot[] = [];
  for (const root of roots) {
    if (typeof root !== "string" || root.length === 0 || CONTROL_CHARS.test(root)) {
      throw new FilesystemConfigError(
        `filesystem.roots entries must be non-empty directory paths without control characters; got ${JSON.stringify(root)}.`,
      );
    }
    const configured = path.resolve(root);
    let real: string;
    try {
      real = realpathSync.native(configured);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      const why = code === "ENOENT" ? "does not exist" : `cannot be opened (${code ?? "unknown error"})`;
      throw new FilesystemConfigError(
        `Filesystem root ${JSON.stringify(root)} ${why}; create it or remove it from filesystem.roots.`,
      );
    }
    const stats = statSync(real);
    if (!stats.isDirectory()) {
      throw new FilesystemConfigError(
        `Filesystem root ${JSON.stringify(root)} is not a directory; filesystem.roots must list directories.`,
      );
    }
    if (!prepared.some((existing) => existing.real === real))
      prepared.push({ configured, real, identity: { dev: stats.dev, ino: stats.ino } });
  }
  return prepared;
}
