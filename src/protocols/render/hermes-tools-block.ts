import type { Tool } from "@modelcontextprotocol/server";
import { functionToolJson } from "./function-tool-json.js";

/**
 * The tool list of the Hermes / Qwen 2.5 chat template, which GLM-4.5 reuses word for word: a `# Tools` header,
 * then one function JSON per line inside `<tools></tools>`, then a blank line.
 */
export function hermesToolsBlock(tools: readonly Tool[]): string[] {
  return [
    "# Tools",
    "",
    "You may call one or more functions to assist with the user query.",
    "",
    "You are provided with function signatures within <tools></tools> XML tags:",
    "<tools>",
    ...tools.map((t) => JSON.stringify(functionToolJson(t))),
    "</tools>",
    "",
  ];
}
