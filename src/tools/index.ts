export * from "./builtin/index.js";
export { createMemoryTools } from "./builtin/memory.js";
export { resolveTimeZone, timeZoneNames } from "./builtin/resolve-time-zone.js";
export {
  type DefineToolWithJsonSchema,
  type DefineToolWithZod,
  defineTool,
  type JsonSchemaObject,
  toolDefinitionFromMcpTool,
} from "./define-tool.js";
export {
  DuplicateToolError,
  InvalidCursorError,
  ToolbridgeError,
  ToolDefinitionError,
  ToolInputError,
  ToolNotFoundError,
} from "./errors.js";
export { errorResult, normalizeToolResult, resultText } from "./normalize-tool-result.js";
export {
  createRedactor,
  DEFAULT_SECRET_PATTERNS,
  REDACTED,
  type Redactor,
  type RedactorOptions,
  redactDeep,
} from "./redact-secrets.js";
export { ANNOTATION_FORMATS, TIME_ZONE_FORMAT } from "./schema-formats.js";
export { selectTools, type ToolSelection } from "./select-tools.js";
export type {
  AnyToolDefinition,
  RateLimit,
  ToolContext,
  ToolDefinition,
  ToolHandler,
  ToolHandlerOutput,
  ToolOptions,
} from "./tool-definition.js";
export {
  type ExecuteOptions,
  type ProgressUpdate,
  type ToolCallOutcome,
  type ToolCallRequest,
  type ToolCallStatus,
  ToolExecutor,
  type ToolExecutorOptions,
} from "./tool-executor.js";
export { ToolIndex, type ToolMatch } from "./tool-index.js";
export { assertValidToolName, isValidToolName, TOOL_NAME_PATTERN } from "./tool-name.js";
export {
  type ListToolsOptions,
  type RegistryChange,
  type ToolPage,
  ToolRegistry,
  type ToolRegistryOptions,
} from "./tool-registry.js";
export { truncateToolResult } from "./truncate-tool-result.js";
export {
  compileToolSchema,
  describeValidationErrors,
  type ValidationResult,
  validateAgainstSchema,
  validateToolInput,
} from "./validate-tool-input.js";
