import type {
  Tool as AnthropicTool,
  ToolChoice as AnthropicToolChoice,
  ContentBlockParam,
  MessageParam,
  ToolResultBlockParam,
} from "@anthropic-ai/sdk/resources/messages/messages";
import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type { AgentMessage, AgentToolCall } from "../../core/agent-message.js";
import type { ToolChoice } from "../../core/language-model.js";
import { resultToText } from "../../protocols/core/render-helpers.js";

export interface AnthropicConversation {
  /** System messages joined: the Messages API takes the system prompt at top level, not as a message. */
  system?: string;
  messages: MessageParam[];
}

function resultBlock(m: Extract<AgentMessage, { role: "tool" }>): ToolResultBlockParam {
  const content: Array<
    | { type: "text"; text: string }
    | {
        type: "image";
        source: {
          type: "base64";
          media_type: "image/png" | "image/jpeg" | "image/gif" | "image/webp";
          data: string;
        };
      }
  > = [];
  let onlyTextAndImages = true;
  for (const block of m.result.content ?? []) {
    if (block.type === "text") content.push({ type: "text", text: block.text });
    else if (block.type === "image" && /^image\/(png|jpeg|gif|webp)$/.test(block.mimeType)) {
      content.push({
        type: "image",
        source: { type: "base64", media_type: block.mimeType as "image/png", data: block.data },
      });
    } else onlyTextAndImages = false;
  }
  // Anything else (audio, resources, structured content only) goes as the text a model would read.
  const blocks =
    onlyTextAndImages && content.length > 0
      ? content
      : [{ type: "text" as const, text: resultToText(m.result) || "(no output)" }];
  return {
    type: "tool_result",
    tool_use_id: m.callId,
    content: blocks,
    ...(m.result.isError ? { is_error: true } : {}),
  };
}

/**
 * Our messages → Anthropic Messages. Consecutive tool results become one user message of `tool_result` blocks
 * (first, as the API requires), a user message right after them joins that message, empty assistant text is left
 * out (the API rejects empty text blocks), and reasoning is not replayed (it would need its signature).
 */
export function toAnthropicMessages(messages: readonly AgentMessage[]): AnthropicConversation {
  const system: string[] = [];
  const out: MessageParam[] = [];
  const push = (role: "user" | "assistant", blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = out.at(-1);
    if (last && last.role === role && Array.isArray(last.content)) last.content.push(...blocks);
    else out.push({ role, content: blocks });
  };
  for (const m of messages) {
    switch (m.role) {
      case "system":
        system.push(m.content);
        break;
      case "user":
        if (m.content !== "") push("user", [{ type: "text", text: m.content }]);
        break;
      case "assistant": {
        const blocks: ContentBlockParam[] = [];
        if (m.content.trim() !== "") blocks.push({ type: "text", text: m.content });
        for (const c of m.toolCalls ?? [])
          blocks.push({ type: "tool_use", id: c.id, name: c.name, input: c.arguments });
        push("assistant", blocks);
        break;
      }
      case "tool":
        push("user", [resultBlock(m)]);
        break;
    }
  }
  const conversation: AnthropicConversation = { messages: out };
  if (system.length) conversation.system = system.join("\n\n");
  return conversation;
}

function resultFromBlock(block: ToolResultBlockParam): CallToolResult {
  const content: CallToolResult["content"] = [];
  if (typeof block.content === "string") content.push({ type: "text", text: block.content });
  else {
    for (const c of block.content ?? []) {
      if (c.type === "text") content.push({ type: "text", text: c.text });
      else if (c.type === "image" && c.source.type === "base64") {
        content.push({ type: "image", data: c.source.data, mimeType: c.source.media_type });
      }
    }
  }
  return { content, ...(block.is_error ? { isError: true } : {}) };
}

/** Anthropic Messages → our messages (tool names come from the `tool_use` block each result answers). */
export function fromAnthropicMessages(conversation: AnthropicConversation): AgentMessage[] {
  const out: AgentMessage[] = [];
  if (conversation.system !== undefined) out.push({ role: "system", content: conversation.system });
  const names = new Map<string, string>();
  for (const m of conversation.messages) {
    const blocks: ContentBlockParam[] =
      typeof m.content === "string" ? [{ type: "text", text: m.content }] : m.content;
    if (m.role === "assistant") {
      const calls: AgentToolCall[] = [];
      let text = "";
      for (const b of blocks) {
        if (b.type === "text") text += b.text;
        else if (b.type === "tool_use") {
          names.set(b.id, b.name);
          calls.push({ id: b.id, name: b.name, arguments: { ...(b.input as Record<string, unknown>) } });
        }
      }
      out.push({ role: "assistant", content: text, ...(calls.length ? { toolCalls: calls } : {}) });
      continue;
    }
    // Text blocks of one user message are one user message for us.
    let text: Extract<AgentMessage, { role: "user" }> | undefined;
    for (const b of blocks) {
      if (b.type === "tool_result") {
        out.push({
          role: "tool",
          callId: b.tool_use_id,
          name: names.get(b.tool_use_id) ?? "",
          result: resultFromBlock(b),
        });
      } else if (b.type === "text") {
        if (text) text.content += b.text;
        else {
          text = { role: "user", content: b.text };
          out.push(text);
        }
      }
    }
  }
  return out;
}

/** MCP tools → Anthropic tools (`input_schema` is the tool's JSON Schema, which must be an object schema). */
export function toAnthropicTools(tools: readonly Tool[]): AnthropicTool[] {
  return tools.map((t) => {
    const { $schema: _ignored, ...schema } = t.inputSchema as Record<string, unknown>;
    return {
      name: t.name,
      ...((t.description ?? t.title) ? { description: t.description ?? t.title } : {}),
      input_schema: { ...schema, type: "object" } as AnthropicTool["input_schema"],
    };
  });
}

/** auto → auto, required → any, { name } → tool, none → none. */
export function toAnthropicToolChoice(
  choice: ToolChoice,
  options: { parallel?: boolean } = {},
): AnthropicToolChoice {
  const parallel = options.parallel === false ? { disable_parallel_tool_use: true } : {};
  if (typeof choice === "object") return { type: "tool", name: choice.name, ...parallel };
  if (choice === "required") return { type: "any", ...parallel };
  if (choice === "none") return { type: "none" };
  return { type: "auto", ...parallel };
}
