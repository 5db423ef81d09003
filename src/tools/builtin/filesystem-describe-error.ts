import { FilesystemError } from "./filesystem-errors.js";
import { quotePath } from "./filesystem-quote-path.js";

export function errnoCode(error: unknown): string | undefined {
  return typeof error === "object" && error !== null ? (error as NodeJS.ErrnoException).code : undefined;
}

/**
 * Turn an error from a filesystem call into a FilesystemError that names only the requested path: the raw message
 * would carry the syscall's own path, which after symlink expansion may be one the model must not learn.
 */
export function describeFsError(error: unknown, requested: string): FilesystemError {
  if (error instanceof FilesystemError) return error;
  const shown = quotePath(requested);
  switch (errnoCode(error)) {
    case "ENOENT":
      return new FilesystemError("not-found", `${shown} does not exist. Check the name with list_directory.`);
    case "EEXIST":
    case "ENOTEMPTY":
      return new FilesystemError(
        "already-exists",
        `${shown} already exists (or is a directory that is not empty).`,
      );
    case "ENOTDIR":
      return new FilesystemError("not-a-directory", `A component of ${shown} is not a directory.`);
    case "EISDIR":
      return new FilesystemError("not-a-file", `${shown} is a directory, not a file.`);
    case "ELOOP":
      return new FilesystemError(
        "symlink-loop",
        `${shown} goes through a symbolic link loop (or a symbolic link appeared where none may be); nothing was done.`,
      );
    case "ENAMETOOLONG":
      return new FilesystemError(
        "name-too-long",
        `${shown} is too long for the filesystem; use a shorter name.`,
      );
    case "EACCES":
    case "EPERM":
      return new FilesystemError("permission-denied", `Permission denied for ${shown}.`);
    case "EXDEV":
      return new FilesystemError(
        "io-error",
        `${shown} cannot be moved across filesystems (different roots or mounts); copy it with read_file and write_file instead.`,
      );
    case "EINVAL":
      return new FilesystemError(
        "invalid-path",
        `${shown} cannot be used here (for example, a directory moved into itself).`,
      );
    default:
      return new FilesystemError(
        "io-error",
        `The filesystem refused ${shown} (${errnoCode(error) ?? "unknown error"}).`,
      );
  }
}
