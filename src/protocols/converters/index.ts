export * from "./anthropic-converters.js";
export * from "./envelope-converters.js";
export * from "./mcp-call-converters.js";
export * from "./openai-converters.js";
