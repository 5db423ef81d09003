import type { Tool } from "@modelcontextprotocol/server";
import type { AgentMessage } from "../../core/agent-message.js";
import type { ToolChoice } from "../../core/language-model.js";
import type { ToolCallProtocol } from "../../protocols/protocol.js";
import type { ToolResultItem } from "../../protocols/types.js";
import { type ChatTemplate, ChatTemplateError } from "../chat-template/chat-template.js";
import type { TemplateMessage } from "../message-converters/template-messages.js";
import { renderToolCatalogue } from "../render-tool-catalogue.js";

export interface CompletionPromptInput {
  messages: readonly AgentMessage[];
  tools: readonly Tool[];
  toolChoice: ToolChoice;
  protocol: ToolCallProtocol;
  template: ChatTemplate;
  /** Allow several calls per turn (default true). */
  parallel?: boolean;
  /** Extra template variables (e.g. `{ enable_thinking: false }`). */
  variables?: Record<string, unknown>;
  /** Start the assistant turn with the call's opening text when a call is forced (default true). */
  forceCallPrefix?: boolean;
}

export interface CompletionPrompt {
  /** The whole prompt, forced prefix included. */
  prompt: string;
  /** Text the prompt already wrote of the model's answer (the opening of a forced call); parse it with the answer. */
  forcedPrefix: string;
  /** The plain-role messages the template rendered (for debugging and tests). */
  messages: TemplateMessage[];
}

const SENTINEL = "__toolbridge_arguments__";

/**
 * The opening of a call in the protocol's own words: the call-start marker for `required`, and everything up to the
 * arguments for a named tool (rendered through `renderAssistantTurn`, so it is exactly what the parser reads).
 */
export function forcedCallPrefix(protocol: ToolCallProtocol, choice: ToolChoice): string {
  if (choice === "required") return protocol.callStartMarkers[0] ?? "";
  if (typeof choice !== "object") return "";
  const rendered = protocol.renderAssistantTurn({
    calls: [{ id: "call_0", name: choice.name, arguments: { [SENTINEL]: 0 } }],
  });
  let cut = rendered.indexOf(SENTINEL);
  if (cut === -1) return protocol.callStartMarkers[0] ?? "";
  if (rendered[cut - 1] === '"') cut -= 1;
  if (rendered[cut - 1] === "{") cut -= 1;
  return rendered.slice(0, cut);
}

export type ProtocolTranscriptInput = Pick<
  CompletionPromptInput,
  "messages" | "tools" | "toolChoice" | "protocol" | "parallel"
>;

/**
 * The conversation as plain-role text messages in the protocol's words: its catalogue joins the system prompt (none
 * when toolChoice is `none`; only the named tool for `{name}`, with an instruction for forced choices), assistant
 * calls and tool results are written in the protocol's format, consecutive same-role turns are joined.
 */
export function toProtocolTranscript(input: ProtocolTranscriptInput): TemplateMessage[] {
  const { protocol } = input;
  const catalogue = renderToolCatalogue(input);

  const out: TemplateMessage[] = [];
  const add = (role: TemplateMessage["role"], content: string) => {
    const last = out.at(-1);
    // Templates insist on alternating turns: a repair note after tool results joins the results' turn.
    if (last && last.role === role && role !== "system") last.content = `${last.content}\n\n${content}`;
    else out.push({ role, content });
  };
  let results: ToolResultItem[] = [];
  const flushResults = () => {
    if (results.length) add(protocol.resultRole, protocol.renderToolResults(results));
    results = [];
  };
  let systemDone = false;
  for (const m of input.messages) {
    if (m.role !== "tool") flushResults();
    switch (m.role) {
      case "system":
        if (!systemDone && catalogue)
          add("system", m.content.trim() ? `${m.content}\n\n${catalogue}` : catalogue);
        else add("system", m.content);
        systemDone = true;
        break;
      case "user":
        add("user", m.content);
        break;
      case "assistant":
        add(
          "assistant",
          m.toolCalls?.length
            ? protocol.renderAssistantTurn({ content: m.content, calls: m.toolCalls })
            : m.content,
        );
        break;
      case "tool":
        results.push({ callId: m.callId, name: m.name, result: m.result });
        break;
    }
  }
  flushResults();
  if (!systemDone && catalogue) out.unshift({ role: "system", content: catalogue });

  return out;
}

/**
 * Renders a whole conversation as one completion prompt: the protocol transcript framed by the chat template.
 * Templates without a system role (Gemma, old Mistral) get the system text in the first user turn.
 */
export function renderCompletionPrompt(input: CompletionPromptInput): CompletionPrompt {
  const { protocol, toolChoice } = input;
  const withTools = input.tools.length > 0 && toolChoice !== "none";
  const out = toProtocolTranscript(input);
  const forcedPrefix =
    withTools && input.forceCallPrefix !== false ? forcedCallPrefix(protocol, toolChoice) : "";
  const render = (messages: TemplateMessage[]) =>
    input.template.render({
      messages,
      addGenerationPrompt: true,
      ...(input.variables ? { variables: input.variables } : {}),
    });
  let messages = out;
  let prompt: string;
  try {
    prompt = render(messages);
  } catch (error) {
    const system = out.filter((m) => m.role === "system");
    if (!(error instanceof ChatTemplateError) || system.length === 0) throw error;
    messages = foldSystemIntoUser(out);
    prompt = render(messages);
  }
  return { prompt: prompt + forcedPrefix, forcedPrefix, messages };
}

function foldSystemIntoUser(messages: readonly TemplateMessage[]): TemplateMessage[] {
  const system = messages
    .filter((m) => m.role === "system")
    .map((m) => m.content)
    .join("\n\n");
  const rest = messages.filter((m) => m.role !== "system").map((m) => ({ ...m }));
  const firstUser = rest.find((m) => m.role === "user");
  if (firstUser) firstUser.content = `${system}\n\n${firstUser.content}`;
  else rest.unshift({ role: "user", content: system });
  return rest;
}
