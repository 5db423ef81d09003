import type { CallToolResult } from "@modelcontextprotocol/server";
import { resultToJsonValue, resultToText } from "../core/render-helpers.js";
import { decodeCallArguments } from "../decode-call-arguments.js";
import type { ToolCall, ToolResultItem } from "../types.js";

export interface ToolCallsEnvelope {
  tool_calls: { id?: string; name: string; arguments: Record<string, unknown> }[];
}

export type ToolResultEntry =
  | { id?: string; name: string; content: unknown }
  | { id?: string; name: string; error: string };

export interface ToolResultsEnvelope {
  tool_results: ToolResultEntry[];
}

/** Calls → `{"tool_calls": [...]}` (reference 001). */
export function toToolCallsEnvelope(calls: readonly ToolCall[]): ToolCallsEnvelope {
  return { tool_calls: calls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) };
}

/** `{"tool_calls": [...]}` → calls; entries without an id get `createId(index)`. */
export function fromToolCallsEnvelope(
  env: ToolCallsEnvelope,
  createId: (index: number) => string = (i) => `call_${i}`,
): ToolCall[] {
  return env.tool_calls.map((c, i) => {
    const args = decodeCallArguments(c.arguments);
    return { id: c.id ?? createId(i), name: c.name, arguments: args.ok ? args.value : {} };
  });
}

/** Results → `{"tool_results": [...]}`: `content` holds structured content or text; failures carry `error`. */
export function toToolResultsEnvelope(results: readonly ToolResultItem[]): ToolResultsEnvelope {
  return {
    tool_results: results.map((r) =>
      r.result.isError
        ? { id: r.callId, name: r.name, error: resultToText(r.result).replace(/^Error:\s*/, "") }
        : { id: r.callId, name: r.name, content: resultToJsonValue(r.result) },
    ),
  };
}

/** `{"tool_results": [...]}` → MCP results (text content; objects also as `structuredContent`). */
export function fromToolResultsEnvelope(env: ToolResultsEnvelope): ToolResultItem[] {
  return env.tool_results.map((r, i) => ({
    callId: r.id ?? `call_${i}`,
    name: r.name,
    result: "error" in r ? errorResult(r.error) : contentResult(r.content),
  }));
}

function errorResult(message: string): CallToolResult {
  return { content: [{ type: "text", text: message }], isError: true };
}

function contentResult(content: unknown): CallToolResult {
  if (typeof content === "string") return { content: [{ type: "text", text: content }] };
  const text = JSON.stringify(content);
  if (typeof content === "object" && content !== null && !Array.isArray(content)) {
    return { content: [{ type: "text", text }], structuredContent: content as Record<string, unknown> };
  }
  return { content: [{ type: "text", text }] };
}
