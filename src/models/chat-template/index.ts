export {
  BUILTIN_CHAT_TEMPLATE_NAMES,
  BUILTIN_CHAT_TEMPLATES,
  type BuiltinChatTemplateName,
  resolveBuiltinChatTemplateName,
} from "./builtin-chat-templates.js";
export {
  ChatTemplate,
  ChatTemplateError,
  type ChatTemplateOptions,
  type RenderChatTemplateInput,
} from "./chat-template.js";
export { builtinChatTemplate, type ChatTemplateSource, loadChatTemplate } from "./load-chat-template.js";
