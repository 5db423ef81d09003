import type { CallToolResult } from "@modelcontextprotocol/server";
import type { ToolCall, ToolResultItem } from "../types.js";

export interface AnthropicToolUseBlock {
  type: "tool_use";
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export type AnthropicResultContent =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: string; data: string } };

export interface AnthropicToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: AnthropicResultContent[];
  is_error?: boolean;
}

export function toAnthropicToolUse(calls: readonly ToolCall[]): AnthropicToolUseBlock[] {
  return calls.map((c) => ({ type: "tool_use", id: c.id, name: c.name, input: c.arguments }));
}

export function fromAnthropicToolUse(blocks: readonly { type: string }[]): ToolCall[] {
  return blocks
    .filter((b): b is AnthropicToolUseBlock => b.type === "tool_use")
    .map((b) => ({ id: b.id, name: b.name, arguments: { ...b.input } }));
}

/** Results → `tool_result` blocks: text and image content kept; structured content as JSON text. */
export function toAnthropicToolResults(results: readonly ToolResultItem[]): AnthropicToolResultBlock[] {
  return results.map((r) => {
    const content: AnthropicResultContent[] = [];
    for (const block of r.result.content ?? []) {
      if (block.type === "text") content.push({ type: "text", text: block.text });
      else if (block.type === "image") {
        content.push({
          type: "image",
          source: { type: "base64", media_type: block.mimeType, data: block.data },
        });
      }
    }
    if (content.length === 0 && r.result.structuredContent !== undefined) {
      content.push({ type: "text", text: JSON.stringify(r.result.structuredContent) });
    }
    return {
      type: "tool_result",
      tool_use_id: r.callId,
      content,
      ...(r.result.isError ? { is_error: true } : {}),
    };
  });
}

/** A `tool_result` block → a result; the name comes from the `tool_use` it answers. */
export function fromAnthropicToolResult(block: AnthropicToolResultBlock, name: string): ToolResultItem {
  const content: CallToolResult["content"] = block.content.map((c) =>
    c.type === "text"
      ? { type: "text" as const, text: c.text }
      : { type: "image" as const, data: c.source.data, mimeType: c.source.media_type },
  );
  return {
    callId: block.tool_use_id,
    name,
    result: { content, ...(block.is_error ? { isError: true } : {}) },
  };
}
