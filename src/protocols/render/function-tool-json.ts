import type { Tool } from "@modelcontextprotocol/server";
import { toolToFunctionJson } from "../core/render-helpers.js";

/**
 * A tool as an OpenAI `{"type": "function", "function": {…}}` entry — the exact object Hermes, Llama 3, GLM,
 * Granite, FireFunction, Mistral and Kimi templates serialise into their tool lists.
 */
export function functionToolJson(tool: Tool): {
  type: "function";
  function: ReturnType<typeof toolToFunctionJson>;
} {
  return { type: "function", function: toolToFunctionJson(tool) };
}
