import type { AnyToolDefinition } from "../tool-definition.js";
import { type CalculatorToolOptions, createCalculatorTool } from "./calculator.js";
import { createDateTimeTools } from "./datetime.js";
import { createDiceTool } from "./dice.js";
import { createFilesystemTools } from "./filesystem.js";
import { createWebSearchTool, type WebSearchBackend } from "./web-search.js";

export interface BuiltinToolsOptions {
  /** Filesystem tools are offered only when roots are configured. */
  filesystem?: { roots: string[]; allowWrites?: boolean; maxReadBytes?: number };
  /** Web search exists only when a backend is configured. */
  webSearch?: WebSearchBackend & { maxResults?: number };
  /** The calculator's settings: a pool of its workers to use (one the caller starts early, or shares), limits. */
  calculator?: CalculatorToolOptions;
}

/** The built-in tools a deployment gets by default (memory and web search join when a store / backend exists). */
export function createBuiltinTools(options: BuiltinToolsOptions = {}): AnyToolDefinition[] {
  const tools: AnyToolDefinition[] = [
    createCalculatorTool(options.calculator),
    createDiceTool(),
    ...createDateTimeTools(),
  ];
  if (options.filesystem && options.filesystem.roots.length > 0)
    tools.push(...createFilesystemTools(options.filesystem));
  if (options.webSearch) {
    const { maxResults, ...backend } = options.webSearch;
    tools.push(createWebSearchTool(maxResults === undefined ? { backend } : { backend, maxResults }));
  }
  return tools;
}

export {
  createCalculatorTool,
  createDateTimeTools,
  createDiceTool,
  createFilesystemTools,
  createWebSearchTool,
};
