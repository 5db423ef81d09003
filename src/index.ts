/**
 * toolbridge — reliable, safe tool use for any language model through the Model Context Protocol.
 * The public API: everything a library user needs is re-exported here from the rooms below.
 */

// The agent loop and its persistence.
export * from "./agent/index.js";
// Configuration.
export type { ToolbridgeConfig } from "./config/config-schema.js";
export {
  ConfigError,
  DEFAULT_CONFIG_FILE,
  type LoadedConfig,
  loadConfig,
  parseConfig,
} from "./config/load-config.js";
// MCP both ways, and the HTTP server.
export * from "./mcp/index.js";
export {
  BUNDLED_MODEL_METADATA,
  bundledModelPath,
  hasBundledModel,
  type ModelHints,
  readModelHints,
} from "./models/bundled-model.js";
// Models: node-llama-cpp, OpenAI-compatible chat, text completions, Anthropic; GGUF writing.
export * from "./models/index.js";
export { renderCompactCatalogue, withCompactCatalogue } from "./protocols/compact-catalogue.js";
// Text tool-call protocols and converters.
export * from "./protocols/index.js";
export * from "./server/index.js";
export * from "./store/index.js";
export {
  type BfclFunctionDoc,
  type BfclParameterSchema,
  BfclSchemaError,
  convertBfclFunctionToTool,
  convertBfclSchema,
} from "./tools/bfcl-schema.js";
export type { FilesystemToolsOptions } from "./tools/builtin/filesystem.js";
export {
  FilesystemConfigError,
  FilesystemError,
  type FilesystemErrorCode,
} from "./tools/builtin/filesystem-errors.js";
// Built-in tools.
export {
  type BuiltinToolsOptions,
  createBuiltinTools,
  createCalculatorTool,
  createDateTimeTools,
  createDiceTool,
  createFilesystemTools,
  createWebSearchTool,
} from "./tools/builtin/index.js";
export { createMemoryTools } from "./tools/builtin/memory.js";
// `format: TIME_ZONE_FORMAT` on your own tools' zone arguments: local models' call grammar then lists the names.
export { resolveTimeZone, TIME_ZONE_FORMAT, timeZoneNames } from "./tools/builtin/resolve-time-zone.js";
export type { WebSearchBackend, WebSearchOptions, WebSearchResult } from "./tools/builtin/web-search.js";
// Tools: define, register, validate, execute.
export * from "./tools/index.js";
