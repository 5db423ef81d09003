import { ToolbridgeError } from "../core/toolbridge-error.js";

/** Thrown by `getProtocol` for an id no format uses. */
export class UnknownProtocolError extends ToolbridgeError {
  override readonly name = "UnknownProtocolError";
  constructor(
    readonly id: string,
    known: readonly string[],
  ) {
    super(`Unknown tool-call format "${id}". Use one of: ${known.join(", ")}.`);
  }
}

/** Thrown by `getProtocol` for a known format id whose implementation has not been written yet. */
export class ProtocolNotImplementedError extends ToolbridgeError {
  override readonly name = "ProtocolNotImplementedError";
  constructor(
    readonly id: string,
    implemented: readonly string[],
  ) {
    super(
      `Tool-call format "${id}" is known but not implemented yet. Pick an implemented one: ${implemented.join(", ")}.`,
    );
  }
}
