import type { Context } from "hono";
import { z } from "zod";
import { isValidToolName } from "../../tools/tool-name.js";
import { badRequest } from "../http-error.js";
import { parseWithSchema } from "../parse-with-schema.js";
import { readJsonBody } from "../read-json-body.js";
import type { ToolSettingsPatch } from "./tool-settings.js";
import { toolView, unknownToolError } from "./tool-view.js";
import type { ToolsApiContext } from "./tools-api-context.js";

const got = (input: unknown) => `got ${JSON.stringify(input)}`;

/** A PATCH body: `enabled` and/or `policy`, `null` resetting a field to what the config says. */
export const toolSettingsPatchSchema = z
  .strictObject(
    {
      enabled: z
        .boolean({ error: (i) => `\`enabled\` must be true, false or null (as configured), ${got(i.input)}` })
        .nullable()
        .optional(),
      policy: z
        .enum(["always", "ask", "never"], {
          error: (i) =>
            `\`policy\` must be one of "always", "ask", "never" or null (as configured), ${got(i.input)}`,
        })
        .nullable()
        .optional(),
    },
    {
      error: (issue) =>
        issue.code === "unrecognized_keys"
          ? issue.keys
              .map((key) => `unknown field \`${key}\` (only \`enabled\` and \`policy\` can be changed)`)
              .join("; ")
          : 'The body must be a JSON object such as {"enabled": false} or {"policy": "ask"}',
    },
  )
  .refine((patch) => "enabled" in patch || "policy" in patch, {
    error: "nothing to change: give `enabled` and/or `policy`",
  });

/** Check a PATCH body field by field: a 422 naming every problem, so nothing is half-applied. */
export function parseToolSettingsPatch(body: unknown): ToolSettingsPatch {
  return parseWithSchema(toolSettingsPatchSchema, body, {
    status: 422,
    code: "invalid_settings",
    message: (issues) =>
      issues.length === 1 && issues[0]?.code === "invalid_type" && issues[0].path.length === 0
        ? `${issues[0].message}. Nothing was changed.`
        : `Invalid tool settings: ${issues.map((issue) => issue.message).join("; ")}. Nothing was changed.`,
  }) as ToolSettingsPatch;
}

/**
 * `PATCH /api/tools/{name}` with `{enabled?, policy?}`: stored, and applied at once on every surface. A tool that is
 * not there yet (its MCP server is still connecting) may be set too: the setting waits for it.
 */
export function patchToolRoute(context: ToolsApiContext) {
  const { registry, settings } = context;
  return async (c: Context) => {
    const name = c.req.param("name") as string;
    if (!isValidToolName(name))
      throw badRequest(
        `"${String(name).slice(0, 64)}" is not a tool name (1–128 characters of A-Z a-z 0-9 _ . -).`,
        null,
        "invalid_tool_name",
      );
    const definition = registry.get(name, { includeDisabled: true });
    const pendingServer = context.mcpServers
      ?.status()
      .find((status) => name.startsWith(`${status.name}.`) && status.state !== "ready");
    if (!definition && !pendingServer && !settings.get(name)) throw unknownToolError(name);
    const patch = parseToolSettingsPatch(await readJsonBody(c));
    const stored = await settings.update(name, patch);
    if (definition) return c.json(toolView(definition, context));
    // Kept for a tool that is not there yet (its server is still connecting): applied when it appears.
    return c.json({
      name,
      registered: false,
      enabled: stored.enabled !== false,
      ...(stored.policy ? { policy: stored.policy } : {}),
    });
  };
}
