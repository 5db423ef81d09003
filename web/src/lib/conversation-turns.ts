import type { AgentMessage, Conversation } from "../api/types.js";

export interface Turn {
  runId: string;
  prompt: string;
  /** The run's part of the conversation (its prompt, assistant turns and tool results). */
  messages: AgentMessage[];
}

/** Messages the loop adds as "user" to ask the model to repair a call: not a prompt. */
const REPAIR_PREFIX = "[tool call error]";

/**
 * A conversation as turns: each run starts with one prompt (a user message), in order. Messages carry no run id on
 * the wire, so prompts and runs are paired by position.
 */
export function conversationTurns(conversation: Conversation): Turn[] {
  const starts: number[] = [];
  conversation.messages.forEach((message, index) => {
    if (message.role === "user" && !message.content.startsWith(REPAIR_PREFIX)) starts.push(index);
  });
  return conversation.runs.map((run, index) => {
    const start = starts[index];
    const end = starts[index + 1] ?? conversation.messages.length;
    const messages = start === undefined ? [] : conversation.messages.slice(start, end);
    const prompt = start === undefined ? "" : (conversation.messages[start] as { content: string }).content;
    return { runId: run.runId, prompt, messages };
  });
}
