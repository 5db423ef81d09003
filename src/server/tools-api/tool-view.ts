import type { AnyToolDefinition } from "../../tools/tool-definition.js";
import { HttpError } from "../http-error.js";
import { toolSourceOf } from "./tool-source.js";
import type { ToolsApiContext } from "./tools-api-context.js";

/** A tool as the Tools API shows it: the MCP tool, where it comes from, and its settings (on/off, policy and why). */
export function toolView(definition: AnyToolDefinition, context: ToolsApiContext) {
  const { settings } = context;
  const tool = definition.tool;
  const name = tool.name;
  return {
    name,
    ...(tool.title === undefined ? {} : { title: tool.title }),
    ...(tool.description === undefined ? {} : { description: tool.description }),
    category: definition.category,
    source: toolSourceOf(definition, context),
    enabled: settings.enabled(name),
    policy: settings.effectivePolicy(definition),
    policySource: settings.policySource(definition),
    configuredPolicy: settings.configuredPolicy(definition),
    requiresApproval: definition.requiresApproval,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema === undefined ? {} : { outputSchema: tool.outputSchema }),
    ...(tool.annotations === undefined ? {} : { annotations: tool.annotations }),
  };
}

/** The 404 of a name no tool has (thrown; GET /api/tools is where the caller finds the right one). */
export function unknownToolError(name: string) {
  return new HttpError(404, `Unknown tool "${name}". GET /api/tools lists the tools this server has.`, {
    code: "tool_not_found",
  });
}
