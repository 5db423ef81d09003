/** Typed errors of the tool layer (see ToolbridgeError for how their messages are written). */
import { ToolbridgeError } from "../core/toolbridge-error.js";

export { ToolbridgeError };

/** A tool definition that cannot be accepted (bad name, bad schema, bad option). */
export class ToolDefinitionError extends ToolbridgeError {
  override name = "ToolDefinitionError";
}

export class DuplicateToolError extends ToolbridgeError {
  override name = "DuplicateToolError";
  constructor(readonly toolName: string) {
    super(`A tool named "${toolName}" is already registered; unregister it first or pick another name.`);
  }
}

export class ToolNotFoundError extends ToolbridgeError {
  override name = "ToolNotFoundError";
  constructor(
    readonly toolName: string,
    readonly available: readonly string[] = [],
  ) {
    const hint =
      available.length === 0
        ? ""
        : ` Available tools: ${available.slice(0, 30).join(", ")}${available.length > 30 ? ", …" : ""}.`;
    super(`Unknown tool "${toolName}".${hint}`);
  }
}

/** Arguments that do not match a tool's input schema. `issues` has one line per problem. */
export class ToolInputError extends ToolbridgeError {
  override name = "ToolInputError";
  constructor(
    readonly toolName: string,
    readonly issues: readonly string[],
  ) {
    super(`Invalid arguments for ${toolName}:\n${issues.map((issue) => `- ${issue}`).join("\n")}`);
  }
}

/** A pagination cursor we did not issue (or one that no longer parses). Maps to JSON-RPC -32602 at the MCP boundary. */
export class InvalidCursorError extends ToolbridgeError {
  override name = "InvalidCursorError";
  constructor(readonly cursor: string) {
    super(
      `Invalid cursor "${cursor.slice(0, 64)}": pass a nextCursor returned by a previous list call, or none.`,
    );
  }
}
