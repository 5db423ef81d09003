import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
  ChatCompletionToolChoiceOption,
} from "openai/resources/chat/completions";
import type { AgentMessage, AgentToolCall } from "../../core/agent-message.js";
import type { ToolChoice } from "../../core/language-model.js";
import { resultToText } from "../../protocols/core/render-helpers.js";

export interface ToOpenAIMessagesOptions {
  /**
   * What an assistant message that only calls tools carries as `content`. `""` (default) is accepted everywhere;
   * `null` is the spec's shape but LM Studio, Ollama and Mistral reject it on replay; `"omit"` leaves the key out.
   */
  emptyCallContent?: "" | null | "omit";
}

/** Our messages → OpenAI chat messages. Call ids are kept, so the server sees the ids it generated. */
export function toOpenAIChatMessages(
  messages: readonly AgentMessage[],
  options: ToOpenAIMessagesOptions = {},
): ChatCompletionMessageParam[] {
  const empty = options.emptyCallContent === undefined ? "" : options.emptyCallContent;
  return messages.map((m): ChatCompletionMessageParam => {
    switch (m.role) {
      case "system":
      case "user":
        return { role: m.role, content: m.content };
      case "assistant": {
        if (!m.toolCalls?.length) return { role: "assistant", content: m.content };
        const out: ChatCompletionAssistantMessageParam = {
          role: "assistant",
          tool_calls: m.toolCalls.map((c) => ({
            id: c.id,
            type: "function",
            function: { name: c.name, arguments: JSON.stringify(c.arguments) },
          })),
        };
        if (m.content !== "") out.content = m.content;
        else if (empty !== "omit") out.content = empty;
        return out;
      }
      default:
        return { role: "tool", tool_call_id: m.callId, content: resultToText(m.result) };
    }
  });
}

function textOf(content: unknown): string {
  if (content === null || content === undefined) return "";
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (p && typeof p === "object" && "text" in p && typeof p.text === "string" ? p.text : ""))
      .join("");
  }
  return String(content);
}

function parseArguments(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === "object" && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw !== "string" || raw.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(raw);
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A tool message's text → a result. `Error:`-prefixed text (how `resultToText` writes errors) becomes `isError`. */
function resultFromText(text: string): CallToolResult {
  const isError = /^Error:/.test(text);
  return {
    content: [{ type: "text", text: isError ? text.replace(/^Error:\s*/, "") : text }],
    ...(isError ? { isError: true } : {}),
  };
}

/**
 * OpenAI chat messages → our messages (for importing a conversation, e.g. one sent to the OpenAI-compatible server).
 * A tool message takes its name from the call it answers; `developer` counts as `system`.
 */
export function fromOpenAIChatMessages(messages: readonly ChatCompletionMessageParam[]): AgentMessage[] {
  const names = new Map<string, string>();
  const out: AgentMessage[] = [];
  for (const m of messages) {
    switch (m.role) {
      case "system":
      case "developer":
        out.push({ role: "system", content: textOf(m.content) });
        break;
      case "user":
        out.push({ role: "user", content: textOf(m.content) });
        break;
      case "assistant": {
        const calls: AgentToolCall[] = [];
        for (const tc of m.tool_calls ?? []) {
          if (tc.type !== "function") continue;
          names.set(tc.id, tc.function.name);
          calls.push({ id: tc.id, name: tc.function.name, arguments: parseArguments(tc.function.arguments) });
        }
        out.push({
          role: "assistant",
          content: textOf(m.content),
          ...(calls.length ? { toolCalls: calls } : {}),
        });
        break;
      }
      case "tool":
        out.push({
          role: "tool",
          callId: m.tool_call_id,
          name: names.get(m.tool_call_id) ?? "",
          result: resultFromText(textOf(m.content)),
        });
        break;
      case "function":
        break;
    }
  }
  return out;
}

/** MCP tools → OpenAI function tools. `$schema` is dropped: some compatible servers reject unknown schema keys. */
export function toOpenAITools(tools: readonly Tool[]): ChatCompletionFunctionTool[] {
  return tools.map((t) => {
    const { $schema: _ignored, ...parameters } = t.inputSchema as Record<string, unknown>;
    return {
      type: "function",
      function: {
        name: t.name,
        ...((t.description ?? t.title) ? { description: t.description ?? t.title } : {}),
        parameters,
      },
    };
  });
}

export function toOpenAIToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  if (typeof choice === "object") return { type: "function", function: { name: choice.name } };
  return choice;
}
