/**
 * The base of every error toolbridge throws on purpose, so a caller can tell "toolbridge refused or failed, and the
 * message says why" from a bug. Each message is written so that both a person reading a log and a model reading an
 * observation can tell what went wrong and what to do instead.
 */
export class ToolbridgeError extends Error {
  override name = "ToolbridgeError";
}
