import type { LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { AgentMessage, AgentToolCall } from "../core/agent-message.js";
import { UnsupportedSettingError } from "../models/model-errors.js";
import { readCallInput } from "./read-call-input.js";
import { fromToolResultOutput } from "./tool-result-output.js";

/**
 * An AI SDK prompt as toolbridge's messages, for a toolbridge model behind the SDK: texts joined per message,
 * reasoning kept, tool calls with their arguments, tool results as MCP results (errors and denials as `isError`).
 * A call whose input is not an object (the raw text of an unreadable call, as the SDK feeds it back) stays in the
 * assistant's text as it was written. toolbridge models read text: a file in a message is refused, not dropped.
 */
export function toAgentMessages(prompt: LanguageModelV3Prompt): AgentMessage[] {
  const out: AgentMessage[] = [];
  for (const message of prompt) {
    switch (message.role) {
      case "system":
        out.push({ role: "system", content: message.content });
        break;
      case "user": {
        const texts: string[] = [];
        for (const part of message.content) {
          if (part.type === "text") texts.push(part.text);
          else
            throw new UnsupportedSettingError(
              `This model reads text only; the prompt has a ${part.mediaType} file. Send it as text, or use a model that takes files.`,
              "prompt",
            );
        }
        out.push({ role: "user", content: texts.join("") });
        break;
      }
      case "assistant": {
        const texts: string[] = [];
        const reasoning: string[] = [];
        const calls: AgentToolCall[] = [];
        for (const part of message.content) {
          if (part.type === "text") texts.push(part.text);
          else if (part.type === "reasoning") reasoning.push(part.text);
          else if (part.type === "tool-call" && part.providerExecuted !== true) {
            const args = readCallInput(part.input);
            if (args) calls.push({ id: part.toolCallId, name: part.toolName, arguments: args });
            else texts.push(String(part.input));
          }
        }
        out.push({
          role: "assistant",
          content: texts.join(""),
          ...(reasoning.length ? { reasoning: reasoning.join("") } : {}),
          ...(calls.length ? { toolCalls: calls } : {}),
        });
        break;
      }
      case "tool":
        for (const part of message.content) {
          if (part.type !== "tool-result") continue;
          out.push({
            role: "tool",
            callId: part.toolCallId,
            name: part.toolName,
            result: fromToolResultOutput(part.output, part.toolName),
          });
        }
        break;
    }
  }
  return out;
}
