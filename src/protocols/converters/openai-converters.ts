// OpenAI's wire shapes are the openai SDK's own types (a type import: nothing of the SDK loads with the protocols).
import type {
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionToolMessageParam,
} from "openai/resources/chat/completions";
import { resultToText } from "../core/render-helpers.js";
import { decodeCallArguments } from "../decode-call-arguments.js";
import type { ToolCall, ToolResultItem } from "../types.js";

/** OpenAI Chat Completions `tool_calls[]` entry. */
export type OpenAIToolCall = ChatCompletionMessageFunctionToolCall;

/** OpenAI `role: "tool"` message, its content as text (what these converters write and read). */
export type OpenAIToolMessage = ChatCompletionToolMessageParam & { content: string };

export function toOpenAIToolCalls(calls: readonly ToolCall[]): OpenAIToolCall[] {
  return calls.map((c) => ({
    id: c.id,
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.arguments) },
  }));
}

/** OpenAI tool calls → calls. Arguments are a JSON string; broken JSON is repaired, else `{}`. */
export function fromOpenAIToolCalls(toolCalls: readonly OpenAIToolCall[]): ToolCall[] {
  return toolCalls.map((tc) => {
    const args = decodeCallArguments(tc.function.arguments);
    return { id: tc.id, name: tc.function.name, arguments: args.ok ? args.value : {} };
  });
}

/** Results → `role: "tool"` messages (text; errors prefixed with "Error:"). */
export function toOpenAIToolMessages(results: readonly ToolResultItem[]): OpenAIToolMessage[] {
  return results.map((r) => ({ role: "tool", tool_call_id: r.callId, content: resultToText(r.result) }));
}

/** A `role: "tool"` message → a result; the name comes from the call it answers. */
export function fromOpenAIToolMessage(msg: OpenAIToolMessage, name: string): ToolResultItem {
  const isError = /^Error:/.test(msg.content);
  return {
    callId: msg.tool_call_id,
    name,
    result: {
      content: [{ type: "text", text: isError ? msg.content.replace(/^Error:\s*/, "") : msg.content }],
      ...(isError ? { isError: true } : {}),
    },
  };
}
