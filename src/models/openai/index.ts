export { describeOpenAIError } from "./describe-openai-error.js";
export { createOpenAIChatModel, OpenAIChatModel, type OpenAIChatModelOptions } from "./openai-chat-model.js";
export {
  generateCallId,
  type ToolCallDelta,
  ToolCallDeltaAccumulator,
} from "./tool-call-delta-accumulator.js";
