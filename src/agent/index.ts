export type {
  AgentMessage,
  AgentToolCall,
  AssistantMessage,
  ToolResultMessage,
} from "../core/agent-message.js";
export type {
  ExecuteCallOutcome,
  LanguageModel,
  ModelCallRequest,
  ModelEvent,
  ModelFinishReason,
  ModelRequest,
  ModelUsage,
  ToolChoice,
} from "../core/language-model.js";
export { DecisionError, RunNotFoundError, RunStateError } from "./agent-errors.js";
export { type ApprovalPolicy, type ApprovalPolicyConfig, resolveApprovalPolicy } from "./approval-policy.js";
export { type CollectedCall, type CollectedTurn, collectModelTurn } from "./collect-model-turn.js";
export {
  Agent,
  type AgentOptions,
  type ApprovalDecision,
  createAgent,
  type DecideResult,
  type RunOptions,
} from "./create-agent.js";
export type { AgentEvent, AgentEventType, PendingCall } from "./events.js";
export { DEFAULT_LIMITS, type RunLimits, resolveLimits } from "./limits.js";
export {
  createReplayModel,
  createReplayModelFromFile,
  loadReplayTurns,
  ReplayError,
  type ReplayModelOptions,
  type ReplayTurn,
} from "./replay-model.js";
export { RunHandle } from "./run-handle.js";
export { type ApprovalView, buildRunView, type CallView, type RunView } from "./run-view.js";
export type { TextCallProtocol } from "./text-protocol.js";
export { TraceWriter } from "./trace-writer.js";
