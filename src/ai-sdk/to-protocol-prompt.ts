import type { LanguageModelV3Message, LanguageModelV3Prompt } from "@ai-sdk/provider";
import type { Tool } from "@modelcontextprotocol/server";
import type { ToolChoice } from "../core/language-model.js";
import { renderToolCatalogue } from "../models/render-tool-catalogue.js";
import type { ToolCallProtocol } from "../protocols/protocol.js";
import type { ToolCall, ToolResultItem } from "../protocols/types.js";
import { readCallInput } from "./read-call-input.js";
import { fromToolResultOutput } from "./tool-result-output.js";

type UserMessage = Extract<LanguageModelV3Message, { role: "user" }>;
type AssistantMessage = Extract<LanguageModelV3Message, { role: "assistant" }>;
type Part = UserMessage["content"][number] | AssistantMessage["content"][number];

export interface ProtocolPromptInput {
  prompt: LanguageModelV3Prompt;
  /** The function tools offered this turn, as MCP tool objects. */
  tools: readonly Tool[];
  toolChoice: ToolChoice;
  protocol: ToolCallProtocol;
  /** `false`: the catalogue asks for one call per turn. */
  parallel?: boolean;
}

/** Appends `parts` to `into`, joining text that meets text the way the protocol transcript joins turns. */
function appendParts(into: Part[], parts: readonly Part[]): void {
  const [first, ...rest] = parts;
  const last = into.at(-1);
  if (first?.type === "text" && last?.type === "text")
    into[into.length - 1] = { ...last, text: `${last.text}\n\n${first.text}` };
  else if (first) into.push(first);
  into.push(...rest);
}

/**
 * An assistant message whose tool calls are written as the protocol writes them. Text and calls become one text part
 * (`renderAssistantTurn`, so the model sees its own format); reasoning and files stay parts of their own. A call whose
 * input is not an object — the raw text of a call the parser could not read, fed back by the SDK as it was — is
 * written back as that text, exactly as the model wrote it.
 */
function renderAssistant(message: AssistantMessage, protocol: ToolCallProtocol): AssistantMessage {
  if (!message.content.some((part) => part.type === "tool-call" && part.providerExecuted !== true))
    return message;
  const kept: AssistantMessage["content"] = [];
  const texts: string[] = [];
  const calls: ToolCall[] = [];
  for (const part of message.content) {
    if (part.type === "text") texts.push(part.text);
    else if (part.type === "tool-call" && part.providerExecuted !== true) {
      const args = readCallInput(part.input);
      if (args) calls.push({ id: part.toolCallId, name: part.toolName, arguments: args });
      else texts.push(String(part.input));
    } else if (part.type !== "tool-result" && part.type !== "tool-call") kept.push(part);
  }
  // Trimmed as every transcript writes a turn's text: the whitespace before a call is the format's to write.
  const content = texts.join("").trim();
  const text = calls.length ? protocol.renderAssistantTurn({ content, calls }) : content;
  return { ...message, content: [...kept, { type: "text", text }] };
}

/**
 * The AI SDK prompt a model without native tools reads: the protocol's catalogue joins the first system message (one
 * is added at the start when there is none), past calls are written in the protocol's format inside the assistant
 * turns, and tool results go back as a user message in the format's result markup. The same decisions as the
 * transcript every text backend renders (`toProtocolTranscript`: catalogue, forced-choice instruction, consecutive
 * turns of one role joined); user messages keep their files.
 */
export function toProtocolPrompt(input: ProtocolPromptInput): LanguageModelV3Prompt {
  const { protocol } = input;
  const catalogue = renderToolCatalogue(input);
  const out: LanguageModelV3Message[] = [];
  const add = (message: UserMessage | AssistantMessage) => {
    const last = out.at(-1);
    if (last?.role === message.role) {
      const content = [...(last.content as Part[])];
      appendParts(content, message.content as Part[]);
      out[out.length - 1] = { ...last, content } as LanguageModelV3Message;
    } else out.push(message);
  };
  let results: ToolResultItem[] = [];
  const flushResults = () => {
    if (results.length)
      add({ role: "user", content: [{ type: "text", text: protocol.renderToolResults(results) }] });
    results = [];
  };
  let systemDone = false;
  for (const message of input.prompt) {
    if (message.role !== "tool") flushResults();
    switch (message.role) {
      case "system":
        if (!systemDone && catalogue) {
          const content = message.content.trim() ? `${message.content}\n\n${catalogue}` : catalogue;
          out.push({ ...message, content });
        } else out.push(message);
        systemDone = true;
        break;
      case "user":
        add(message);
        break;
      case "assistant":
        add(renderAssistant(message, protocol));
        break;
      case "tool":
        for (const part of message.content) {
          if (part.type !== "tool-result") continue; // approval answers are the SDK's own bookkeeping
          results.push({
            callId: part.toolCallId,
            name: part.toolName,
            result: fromToolResultOutput(part.output, part.toolName),
          });
        }
        break;
    }
  }
  flushResults();
  if (!systemDone && catalogue) out.unshift({ role: "system", content: catalogue });
  return out;
}
