// A tiny random-weights GGUF for tests and experiments: no download, milliseconds to write.
export { makeTestModel, type TestModelOptions, writeTestModel } from "../gguf/make-test-model.js";
export { chooseThreads, TINY_MODEL_PARAMETERS } from "./choose-threads.js";
export { fromLlamaChatHistory, toLlamaChatHistory } from "./llama-chat-history.js";
export { createLlamaModel, LlamaLanguageModel, type LlamaModelOptions } from "./llama-language-model.js";
export { toGbnfJsonSchema } from "./to-gbnf-json-schema.js";
