export { llama } from "./llama.js";
export { toAgentMessages } from "./to-agent-messages.js";
export { type AiSdkModelInfo, toAiSdkModel } from "./to-ai-sdk-model.js";
export {
  type AiSdkToolApprovalStatus,
  type AiSdkToolsOptions,
  toAiSdkToolApproval,
  toAiSdkTools,
} from "./to-ai-sdk-tools.js";
export { fromToolResultOutput, toToolResultOutput } from "./tool-result-output.js";
export {
  type ToolbridgeToolMiddlewareOptions,
  toolbridgeToolMiddleware,
} from "./toolbridge-tool-middleware.js";
