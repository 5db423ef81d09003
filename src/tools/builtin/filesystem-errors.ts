import { ToolbridgeError } from "../../core/toolbridge-error.js";

/** Why a filesystem request was refused or failed; stable for callers that branch on it. */
export type FilesystemErrorCode =
  /** The arguments contradict each other or are out of range (e.g. head with tail); the path was not looked at. */
  | "invalid-argument"
  | "invalid-path"
  | "outside-roots"
  | "not-found"
  | "already-exists"
  | "not-a-file"
  | "not-a-directory"
  | "symlink-loop"
  | "name-too-long"
  | "binary-file"
  | "too-large"
  | "changed-during-call"
  | "hard-linked"
  | "edit-mismatch"
  | "permission-denied"
  | "io-error";

/**
 * A refused or failed filesystem request. Messages name only what the model asked for and paths inside the allowed
 * roots, never anything found outside them.
 */
export class FilesystemError extends ToolbridgeError {
  override name = "FilesystemError";
  constructor(
    readonly code: FilesystemErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** `createFilesystemTools` was given options it cannot work with (missing root, root that is a file, bad limit). */
export class FilesystemConfigError extends ToolbridgeError {
  override name = "FilesystemConfigError";
}
