export * from "./anthropic/index.js";
export * from "./chat-template/index.js";
export * from "./completions/index.js";
export {
  type AnthropicModelSpec,
  backendSupportsNativeTools,
  type CompletionsModelSpec,
  createModel,
  type LlamaModelSpec,
  MODEL_BACKENDS,
  type ModelSpec,
  type OpenAIModelSpec,
  type RoutedModel,
} from "./create-model.js";
export {
  buildLlamaGguf,
  CHATML_TEMPLATE,
  createChatMlVocabulary,
  type LlamaGgufOptions,
  type LlamaHyperParameters,
  type LlamaWeights,
  type Vocabulary,
} from "./gguf/llama-gguf.js";
export { makeTestModel, type TestModelOptions, writeTestModel } from "./gguf/make-test-model.js";
export { encodeGguf, type GgufFile, type GgufTensor, type GgufValue, writeGguf } from "./gguf/write-gguf.js";
// The node-llama-cpp backend is a subpath (`toolbridge/llama`): importing it loads node-llama-cpp (~0.4 s), which
// nobody using only cloud backends should pay for. `createModel({ backend: "llama" })` loads it lazily.
export * from "./message-converters/index.js";
export { MarkupStrippedError, ModelConfigError, ModelRequestError } from "./model-errors.js";
export * from "./openai/index.js";
export { type TextProtocolModel, withTextProtocol } from "./with-text-protocol.js";
