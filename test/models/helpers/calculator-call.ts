import type { GbnfJsonSchema } from "node-llama-cpp";
import type { ChatCompletionFunctionTool } from "openai/resources/chat/completions";

/**
 * The calculator call the test servers (llama-openai-server.ts) have the tiny GGUF write: its arguments come from
 * grammar-bound generation over these expressions, so a random model always writes one of them.
 */
export const EXPRESSIONS = ["2 + 2", "6 * 7", "10 / 4"];
export const calcArguments: GbnfJsonSchema = {
  type: "object",
  properties: { expression: { enum: EXPRESSIONS } },
};
/** A whole call body (`{"name": "calculator", "arguments": {…}}`), for protocols whose markers wrap such JSON. */
export const calcCall: GbnfJsonSchema = {
  type: "object",
  properties: { name: { const: "calculator" }, arguments: calcArguments },
};

/** The calculator as an OpenAI client offers it. */
export const CALCULATOR: ChatCompletionFunctionTool = {
  type: "function",
  function: {
    name: "calculator",
    description: "Evaluate an arithmetic expression",
    parameters: { type: "object", properties: { expression: { type: "string" } }, required: ["expression"] },
  },
};
