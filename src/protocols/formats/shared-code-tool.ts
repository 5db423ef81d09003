import type { Tool } from "@modelcontextprotocol/server";
import type { ToolCall } from "../types.js";

/**
 * The argument a code-interpreter tool's free text goes into: the tool's only string property when the
 * schema names one, else `code` (the llama-stack / llama.cpp convention).
 */
export function codeArgumentName(name: string, tools: readonly Tool[] | undefined): string {
  const tool = tools?.find((t) => t.name === name);
  const props = (tool?.inputSchema as { properties?: Record<string, { type?: unknown }> } | undefined)
    ?.properties;
  if (props) {
    const strings = Object.entries(props).filter(([, s]) => s && s.type === "string");
    if (strings.length === 1) return strings[0]![0];
  }
  return "code";
}

/**
 * Whether a code call can be written as bare text after its marker (`<|python_tag|>`, `>>>python`) and read back
 * unchanged: one string argument, no surrounding blanks, and not starting like another kind of call.
 */
export function isBareCode(call: ToolCall, argName: string): boolean {
  const keys = Object.keys(call.arguments);
  const code = call.arguments[argName];
  return (
    keys.length === 1 &&
    keys[0] === argName &&
    typeof code === "string" &&
    code !== "" &&
    code === code.trim() &&
    !/^[{[<>]/.test(code) &&
    !code.includes("<|") &&
    !code.includes(">>>")
  );
}
