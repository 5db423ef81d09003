import type {
  LanguageModelV3CallOptions,
  LanguageModelV3FunctionTool,
  LanguageModelV3ToolChoice,
  SharedV3Warning,
} from "@ai-sdk/provider";
import type { Tool } from "@modelcontextprotocol/server";
import type { ToolChoice } from "../core/language-model.js";

export interface OfferedTools {
  /** The function tools, as the MCP tool objects toolbridge renders and validates. */
  tools: Tool[];
  toolChoice: ToolChoice;
  /** One per provider-executed tool (web search and the like), which only its own provider can run. */
  warnings: SharedV3Warning[];
}

/** The AI SDK's tool choice in toolbridge's words; absent means `auto`. */
export function fromAiSdkToolChoice(choice: LanguageModelV3ToolChoice | undefined): ToolChoice {
  switch (choice?.type) {
    case "required":
    case "none":
      return choice.type;
    case "tool":
      return { name: choice.toolName };
    default:
      return "auto";
  }
}

/** The tools and tool choice of an AI SDK call, as a toolbridge model or protocol takes them. */
export function fromAiSdkTools(
  params: Pick<LanguageModelV3CallOptions, "tools" | "toolChoice">,
): OfferedTools {
  const tools: Tool[] = [];
  const warnings: SharedV3Warning[] = [];
  for (const tool of params.tools ?? []) {
    if (tool.type === "function") tools.push(toMcpTool(tool));
    else
      warnings.push({
        type: "unsupported",
        feature: `provider-defined tool ${tool.id}`,
        details: "toolbridge offers function tools only; this one was left out.",
      });
  }
  return { tools, toolChoice: fromAiSdkToolChoice(params.toolChoice), warnings };
}

function toMcpTool(tool: LanguageModelV3FunctionTool): Tool {
  return {
    name: tool.name,
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.inputSchema as Tool["inputSchema"],
  };
}
