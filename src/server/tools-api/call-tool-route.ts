import type { Context } from "hono";
import { z } from "zod";
import { executeOptionsFor } from "../../tools/call-gate.js";
import { parseWithSchema } from "../parse-with-schema.js";
import { readJsonBody } from "../read-json-body.js";
import { gateRefusal } from "./gate-refusal.js";
import type { ToolsApiContext } from "./tools-api-context.js";

const FIELDS = "a call takes `arguments`, `confirm` and `dryRun`";

/** The body of `POST /api/tools/{name}/call`; none at all is a call without arguments. */
export const callToolBodySchema = z.strictObject(
  {
    arguments: z.unknown().optional(),
    confirm: z.boolean({ error: "`confirm` must be true or false." }).optional(),
    dryRun: z.boolean({ error: "`dryRun` must be true or false." }).optional(),
  },
  {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `Unknown field(s) ${issue.keys.map((key) => `\`${key}\``).join(", ")}: ${FIELDS}.`
        : 'The body must be a JSON object: {"arguments": {…}} (add "confirm": true for a tool whose policy is "ask").',
  },
);

/**
 * `POST /api/tools/{name}/call`: the call gate decides (as on every surface), then the executor runs it (validation,
 * timeout, redaction). A result with `isError` is still a 200: the tool ran.
 */
export function callToolRoute(context: ToolsApiContext) {
  return async (c: Context) => {
    const name = c.req.param("name") as string;
    const body = await readJsonBody(c);
    const request = parseWithSchema(callToolBodySchema, body === undefined ? {} : body, {
      message: (issues) => issues.map((issue) => issue.message).join(" "),
    });
    const args = request.arguments ?? {};
    // An HTTP call is an explicit action, like `tools call`, but the caller may be a page: `confirm: true` says a
    // person confirmed this very call, which is what an `ask` tool needs.
    const answer = context.gate.check(
      { name, arguments: args },
      { decision: request.confirm === true ? "approved" : undefined, dryRun: request.dryRun === true },
    );
    if (answer.action !== "run")
      throw gateRefusal(name, answer, "GET /api/tools lists the tools this server has.");
    const outcome = await context.executor.execute(
      { name, arguments: args },
      {
        signal: c.req.raw.signal,
        ...(context.callerOf ? { userId: context.callerOf(c) } : {}),
        ...executeOptionsFor(answer, request.dryRun === true),
      },
    );
    return c.json(outcome.result);
  };
}
