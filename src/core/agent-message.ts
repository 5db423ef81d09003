import type { CallToolResult } from "@modelcontextprotocol/server";

/** A tool call as the model made it. `arguments` is what the model sent, parsed; validation happens later. */
export interface AgentToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * The one internal message shape. Model adapters convert it to and from OpenAI, Anthropic, node-llama-cpp and
 * text-protocol transcripts; the store persists it as is.
 */
export type AgentMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | { role: "assistant"; content: string; reasoning?: string; toolCalls?: AgentToolCall[] }
  | { role: "tool"; callId: string; name: string; result: CallToolResult };

export type AssistantMessage = Extract<AgentMessage, { role: "assistant" }>;
export type ToolResultMessage = Extract<AgentMessage, { role: "tool" }>;
