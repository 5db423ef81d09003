import type { CallToolResult, Tool } from "@modelcontextprotocol/server";
import type {
  ChatHistoryItem,
  ChatModelFunctionCall,
  ChatModelResponse,
  ChatModelSegment,
} from "node-llama-cpp";
import type { AgentMessage, AgentToolCall } from "../../core/agent-message.js";
import { resultToText } from "../../protocols/core/render-helpers.js";

type ResponseItem = ChatModelResponse["response"][number];

/** What a function result looks like to the model: the result's text (errors prefixed). */
export function resultForModel(result: CallToolResult): string {
  return resultToText(result);
}

/**
 * Our messages → node-llama-cpp chat history (reference 002 §5). An assistant message and the tool results that answer
 * it become one model item: its text, then a `functionCall` item per call holding the params and the real result;
 * assistant messages that follow tool results without a user turn in between continue the same model item (that is
 * how node-llama-cpp itself records text generated after a function result). Calls without a result yet are left
 * out. The history always ends with a model item — the one generation continues: an empty one after a user turn, or
 * the open one after tool results.
 */
export function toLlamaChatHistory(
  messages: readonly AgentMessage[],
  tools: readonly Tool[] = [],
): ChatHistoryItem[] {
  const results = new Map<string, CallToolResult>();
  for (const m of messages) if (m.role === "tool") results.set(m.callId, m.result);
  const describe = new Map(tools.map((t) => [t.name, t.description ?? ""]));
  const history: ChatHistoryItem[] = [];
  const openModel = (): ChatModelResponse => {
    const last = history.at(-1);
    if (last?.type === "model") return last;
    const item: ChatModelResponse = { type: "model", response: [] };
    history.push(item);
    return item;
  };
  for (const m of messages) {
    switch (m.role) {
      case "system": {
        const last = history.at(-1);
        if (last?.type === "system" && typeof last.text === "string")
          last.text = `${last.text}\n\n${m.content}`;
        else history.push({ type: "system", text: m.content });
        break;
      }
      case "user": {
        const last = history.at(-1);
        if (last?.type === "user") last.text = `${last.text}\n\n${m.content}`;
        else history.push({ type: "user", text: m.content });
        break;
      }
      case "assistant": {
        const item = openModel();
        if (m.reasoning) {
          const thought: ChatModelSegment = {
            type: "segment",
            segmentType: "thought",
            text: m.reasoning,
            ended: true,
          };
          item.response.push(thought);
        }
        if (m.content) item.response.push(m.content);
        let first = true;
        for (const call of m.toolCalls ?? []) {
          const result = results.get(call.id);
          if (!result) continue;
          const fc: ChatModelFunctionCall = {
            type: "functionCall",
            name: call.name,
            params: call.arguments,
            result: resultForModel(result),
            startsNewChunk: first,
          };
          const description = describe.get(call.name);
          if (description) fc.description = description;
          item.response.push(fc);
          first = false;
        }
        break;
      }
      case "tool":
        // Carried by the call it answers (above).
        break;
    }
  }
  openModel();
  return history;
}

export interface FromHistoryOptions {
  /** Ids for the calls (node-llama-cpp's history has none). Default `call_1`, `call_2`, … */
  createId?: () => string;
}

/**
 * node-llama-cpp chat history → our messages: a model item is split at each run of function calls into an assistant
 * message (text so far + those calls) followed by their tool results; the text after the last call becomes the next
 * assistant message. Empty model items (a generation prompt) are dropped.
 */
export function fromLlamaChatHistory(
  history: readonly ChatHistoryItem[],
  options: FromHistoryOptions = {},
): AgentMessage[] {
  let n = 0;
  const createId = options.createId ?? (() => `call_${++n}`);
  const out: AgentMessage[] = [];
  for (const item of history) {
    if (item.type === "system")
      out.push({ role: "system", content: typeof item.text === "string" ? item.text : String(item.text) });
    else if (item.type === "user") out.push({ role: "user", content: item.text });
    else splitModelResponse(item.response, createId, out);
  }
  return out;
}

function splitModelResponse(
  response: readonly ResponseItem[],
  createId: () => string,
  out: AgentMessage[],
): void {
  let text = "";
  let reasoning = "";
  let calls: { call: AgentToolCall; result: unknown }[] = [];
  const flush = (final: boolean) => {
    if (calls.length === 0 && !final) return;
    if (calls.length === 0 && text === "" && reasoning === "") return;
    const message: Extract<AgentMessage, { role: "assistant" }> = { role: "assistant", content: text };
    if (reasoning) message.reasoning = reasoning;
    if (calls.length) message.toolCalls = calls.map((c) => c.call);
    out.push(message);
    for (const { call, result } of calls)
      out.push({ role: "tool", callId: call.id, name: call.name, result: toCallToolResult(result) });
    text = "";
    reasoning = "";
    calls = [];
  };
  for (const part of response) {
    if (typeof part === "string") {
      if (part === "") continue;
      flush(false);
      text += part;
    } else if (part.type === "segment") {
      if (calls.length) flush(false);
      if (part.segmentType === "thought") reasoning += part.text;
    } else {
      if (calls.length && part.startsNewChunk) flush(false);
      const args =
        part.params && typeof part.params === "object" && !Array.isArray(part.params)
          ? (part.params as Record<string, unknown>)
          : {};
      calls.push({ call: { id: createId(), name: part.name, arguments: args }, result: part.result });
    }
  }
  flush(true);
}

function toCallToolResult(result: unknown): CallToolResult {
  // The history keeps only what the model saw: the text (an error's "Error: " prefix included).
  const text = typeof result === "string" ? result : JSON.stringify(result ?? null);
  return { content: [{ type: "text", text }] };
}
