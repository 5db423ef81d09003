export {
  type CompletionPrompt,
  type CompletionPromptInput,
  forcedCallPrefix,
  renderCompletionPrompt,
} from "./render-completion-prompt.js";
export { StopSequenceFilter } from "./stop-sequence-filter.js";
export {
  createTextCompletionModel,
  MARKUP_SAFE_PROTOCOLS,
  TextCompletionModel,
  type TextCompletionModelOptions,
} from "./text-completion-model.js";
