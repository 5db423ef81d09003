export {
  type AnthropicConversation,
  fromAnthropicMessages,
  toAnthropicMessages,
  toAnthropicToolChoice,
  toAnthropicTools,
} from "./anthropic-messages.js";
export {
  fromOpenAIChatMessages,
  type ToOpenAIMessagesOptions,
  toOpenAIChatMessages,
  toOpenAIToolChoice,
  toOpenAITools,
} from "./openai-chat-messages.js";
export { type TemplateMessage, toTemplateMessages } from "./template-messages.js";
