import type { Context } from "hono";
import { badRequest } from "../http-error.js";
import { toolView } from "./tool-view.js";
import type { ToolsApiContext } from "./tools-api-context.js";

const MAX_PAGE_SIZE = 500;

/** `GET /api/tools?cursor=&category=&limit=`: every tool, switched off ones too, a page at a time. */
export function listToolsRoute(context: ToolsApiContext) {
  const { registry } = context;
  return (c: Context) => {
    const cursor = c.req.query("cursor");
    const category = c.req.query("category");
    const limitText = c.req.query("limit");
    let pageSize: number | undefined;
    if (limitText !== undefined) {
      pageSize = Number(limitText);
      if (!/^\d+$/.test(limitText) || pageSize < 1 || pageSize > MAX_PAGE_SIZE)
        throw badRequest(
          `\`limit\` must be a whole number from 1 to ${MAX_PAGE_SIZE}, got "${limitText}".`,
          "limit",
          "invalid_limit",
        );
    }
    // A cursor this server did not give out is an InvalidCursorError: a 400 `invalid_cursor`.
    const page = registry.list({
      includeDisabled: true,
      ...(cursor === undefined ? {} : { cursor }),
      ...(category === undefined ? {} : { category }),
      ...(pageSize === undefined ? {} : { pageSize }),
    });
    const tools = page.tools.flatMap((tool) => {
      const definition = registry.get(tool.name, { includeDisabled: true });
      return definition ? [toolView(definition, context)] : [];
    });
    return c.json(page.nextCursor === undefined ? { tools } : { tools, nextCursor: page.nextCursor });
  };
}
