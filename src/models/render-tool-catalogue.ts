import type { Tool } from "@modelcontextprotocol/server";
import type { ToolChoice } from "../core/language-model.js";
import type { ToolCallProtocol } from "../protocols/protocol.js";

function instruction(choice: ToolChoice): string | undefined {
  if (choice === "required") return "You must call at least one tool in your reply.";
  if (typeof choice === "object") return `You must call the tool "${choice.name}" in your reply.`;
  return undefined;
}

/**
 * A text protocol's catalogue for a turn, as it joins the system prompt: none when no tool is offered or toolChoice
 * is `none`; only the named tool for `{name}`; an instruction line for forced choices. Every transcript in a text
 * protocol renders it here (completion prompts, chat models in text mode, the AI SDK middleware).
 */
export function renderToolCatalogue(input: {
  tools: readonly Tool[];
  toolChoice: ToolChoice;
  protocol: ToolCallProtocol;
  /** `false`: the catalogue asks for one call per turn. */
  parallel?: boolean | undefined;
}): string | undefined {
  const { toolChoice } = input;
  if (input.tools.length === 0 || toolChoice === "none") return undefined;
  const offered =
    typeof toolChoice === "object" ? input.tools.filter((t) => t.name === toolChoice.name) : input.tools;
  const extra = instruction(toolChoice);
  return input.protocol.renderCatalogue(offered.length ? offered : input.tools, {
    ...(input.parallel === false ? { parallel: false } : {}),
    ...(extra ? { extraInstructions: extra } : {}),
  });
}
