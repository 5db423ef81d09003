import { ToolDefinitionError } from "./errors.js";

/** MCP tool names (spec 2025-11-25): 1–128 characters of ASCII letters, digits, `_`, `-` and `.`. */
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_.-]{1,128}$/;

export function isValidToolName(name: unknown): name is string {
  return typeof name === "string" && TOOL_NAME_PATTERN.test(name);
}

export function assertValidToolName(name: unknown): asserts name is string {
  if (typeof name !== "string") {
    throw new ToolDefinitionError(
      `A tool name must be a string, got ${name === null ? "null" : typeof name}.`,
    );
  }
  if (name.length === 0 || name.length > 128) {
    throw new ToolDefinitionError(
      `Tool name "${name.slice(0, 40)}…" must be 1–128 characters long (got ${name.length}).`,
    );
  }
  if (!TOOL_NAME_PATTERN.test(name)) {
    const bad = [...new Set([...name].filter((ch) => !/[A-Za-z0-9_.-]/.test(ch)))].map((ch) =>
      JSON.stringify(ch),
    );
    throw new ToolDefinitionError(
      `Tool name "${name}" contains ${bad.join(", ")}: only letters A–Z a–z, digits, "_", "-" and "." are allowed.`,
    );
  }
}
