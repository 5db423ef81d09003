import type { Context } from "hono";
import { toolView, unknownToolError } from "./tool-view.js";
import type { ToolsApiContext } from "./tools-api-context.js";

/** `GET /api/tools/{name}`: one tool, switched off or not. */
export function getToolRoute(context: ToolsApiContext) {
  return (c: Context) => {
    const name = c.req.param("name") as string;
    const definition = context.registry.get(name, { includeDisabled: true });
    if (!definition) throw unknownToolError(name);
    return c.json(toolView(definition, context));
  };
}
