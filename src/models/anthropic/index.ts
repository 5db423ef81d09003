export {
  AnthropicMessagesModel,
  type AnthropicMessagesModelOptions,
  createAnthropicMessagesModel,
} from "./anthropic-messages-model.js";
