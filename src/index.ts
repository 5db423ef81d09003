/**
 * toolbridge — reliable, safe tool use for any language model through the Model Context Protocol.
 *
 * The root export is what the README's library examples use. The rooms have subpaths of their own, with more:
 * `toolbridge/tools`, `toolbridge/protocols` (pure TypeScript, fit for a browser bundle), `toolbridge/store`,
 * `toolbridge/mcp` and `toolbridge/llama` (loads node-llama-cpp). Importing the root stays cheap (a module budget in
 * test/architecture/import-cost.test.ts): no native addon (better-sqlite3 loads when a SqliteStore opens,
 * node-llama-cpp only through `toolbridge/llama` or `createModel`), no provider SDK (`openai` and
 * `@anthropic-ai/sdk` load at a model's first request) and no built-in tool (`toolbridge/tools`).
 */

// The agent loop, approvals and runs.
export {
  AgentConfigError,
  DecisionError,
  type DecisionErrorReason,
  RunNotFoundError,
  RunStateError,
} from "./agent/agent-errors.js";
export {
  type AgentOptions,
  type ApprovalDecision,
  createAgent,
  type RunOptions,
} from "./agent/create-agent.js";
export type { AgentEvent } from "./agent/events.js";
export type { RunView } from "./agent/run-view.js";
export { ConfigError, loadConfig } from "./config/load-config.js";
// The contracts every room shares.
export type { AgentMessage, AgentToolCall } from "./core/agent-message.js";
export type {
  LanguageModel,
  LoadableModel,
  ModelEvent,
  ModelRequest,
  ToolChoice,
} from "./core/language-model.js";
export type { RunStatus, StopReason, ToolCallState } from "./core/run-status.js";
export { ToolbridgeError } from "./core/toolbridge-error.js";
// MCP both ways, configuration.
export { createMcpServer, mountMcpServers, serveMcpOverStdio } from "./mcp/index.js";
// Models: one contract, every backend (node-llama-cpp through `toolbridge/llama` or createModel).
export { createAnthropicMessagesModel } from "./models/anthropic/anthropic-messages-model.js";
export { createTextCompletionModel } from "./models/completions/text-completion-model.js";
export { createModel, type ModelSpec } from "./models/create-model.js";
export { createOpenAIChatModel } from "./models/openai/openai-chat-model.js";
export { createReplayModel, createReplayModelFromFile, type ReplayTurn } from "./models/replay-model.js";
// Text tool-call protocols and the converters between MCP, OpenAI, Anthropic and the JSON envelopes.
export * from "./protocols/converters/index.js";
export { detectProtocol } from "./protocols/detect-protocol.js";
export { parseToolCalls } from "./protocols/parse-tool-calls.js";
export type { ToolCallProtocol } from "./protocols/protocol.js";
export { getProtocol, listProtocols, registerProtocol } from "./protocols/protocol-registry.js";
// Where runs live.
export { InMemoryStore } from "./store/in-memory-store.js";
export { SqliteStore } from "./store/sqlite-store.js";
export type { RunStore, Store } from "./store/store.js";
// Tools: define, register, validate, execute. The built-in tools (calculator, dates, dice, files, memory, web search)
// are in `toolbridge/tools`.
export { defineTool } from "./tools/define-tool.js";
export {
  DuplicateToolError,
  ToolDefinitionError,
  ToolInputError,
  ToolNotFoundError,
} from "./tools/errors.js";
export { TIME_ZONE_FORMAT } from "./tools/schema-formats.js";
export type { ToolSelection } from "./tools/select-tools.js";
export type { AnyToolDefinition, ToolContext, ToolDefinition } from "./tools/tool-definition.js";
export { ToolExecutor } from "./tools/tool-executor.js";
export { ToolRegistry } from "./tools/tool-registry.js";
