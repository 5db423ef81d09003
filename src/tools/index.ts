export { CallLimiter, type LimitDecision } from "./call-limiter.js";
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
export { createNameFilter, type NameFilterConfig } from "./name-filter.js";
export { errorResult, normalizeToolResult, resultText } from "./normalize-tool-result.js";
export {
  createRedactor,
  DEFAULT_SECRET_PATTERNS,
  REDACTED,
  type Redactor,
  type RedactorOptions,
  redactDeep,
} from "./redact-secrets.js";
export { Semaphore } from "./semaphore.js";
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
