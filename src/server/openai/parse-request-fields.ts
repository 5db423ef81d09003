import type { Tool } from "@modelcontextprotocol/server";
import { z } from "zod";
import type { ToolChoice } from "../../core/language-model.js";
import { badRequest, HttpError } from "../http-error.js";
import { paramPath } from "../param-path.js";

/**
 * The zod pieces every /v1 API's request schema is made of — one rule for a function tool's name and schema, for
 * naming a tool in a tool choice, for counts, flags and text content — and the one way a failed parse becomes the
 * 400 (`parseV1Body`). Each message names the field at fault as OpenAI's `param` writes it (`messages[2].content`);
 * each API writes the error in its own shape.
 */

export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Where an issue is, as `param`: `tools[0].function.name`. */
export function fieldOf(issue: { path?: readonly PropertyKey[] | undefined }): string {
  return paramPath(issue.path ?? []) ?? "body";
}

/** A value as a message quotes it (`got "7"`). */
export const shown = (value: unknown): string => JSON.stringify(value) ?? "undefined";

/** An issue whose message comes with its own code (`unsupported_parameter`), raised by a refinement. */
export function withCode(code: string) {
  return { params: { code } };
}

/**
 * Parse a /v1 body with its schema: the value, or a 400 with the first issue's message, its path as `param` and
 * `invalid_body` (or the code the refinement gave) as `code`. The schemas list fields in the order they are checked.
 */
export function parseV1Body<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  if (!isObject(body)) throw badRequest("The request body must be a JSON object.", null, "invalid_body");
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0] as z.core.$ZodIssue;
  const code = issue.code === "custom" ? (issue.params?.code as string | undefined) : undefined;
  throw new HttpError(400, issue.message, { param: paramPath(issue.path), code: code ?? "invalid_body" });
}

/** `model`: one of the names GET /v1/models lists (checked when the turn starts). */
export const modelField = z
  .string({ error: "`model` is required: one of the names GET /v1/models lists." })
  .min(1);

/** A count ≥ 1; null and absent are "not set". */
export const positiveInteger = z
  .number({
    error: (issue) => `\`${fieldOf(issue)}\` must be a positive integer, got ${shown(issue.input)}.`,
  })
  .int()
  .min(1)
  .nullish();

/** true or false; null and absent are "not set" (the caller's default). */
export const flag = z.boolean({ error: (issue) => `\`${fieldOf(issue)}\` must be true or false.` }).nullish();

/** A string, or null and absent for "not set". */
export const optionalString = z
  .string({ error: (issue) => `\`${fieldOf(issue)}\` must be a string.` })
  .nullish();

/** Content given as a plain string, read as its one part (a JSON body cannot hold one of these). */
class WholeText {
  constructor(readonly text: string) {}
}

/**
 * Text content: a string, or an array of parts each of which `partText` reads (undefined: not a text part, refused
 * naming `wanted`). A string is read as one part. `absent` says what no content (absent or null) is: "" (`empty`),
 * a "`x` is required." refusal (`required`), or the same refusal as any other non-text (`invalid`).
 */
export function textContent(options: {
  parts: string;
  wanted: string;
  partText: (part: unknown) => string | undefined;
  absent: "empty" | "required" | "invalid";
}) {
  const part = z
    .unknown()
    .refine((value) => value instanceof WholeText || options.partText(value) !== undefined, {
      error: (issue) => {
        const type = isObject(issue.input) ? shown(issue.input.type) : "not an object";
        return `\`${fieldOf(issue)}\` must be ${options.wanted} (got type ${type}): this server's models read text only.`;
      },
    })
    .transform((value) => (value instanceof WholeText ? value.text : (options.partText(value) as string)));
  const list = z.array(part, {
    error: (issue) =>
      options.absent === "required" && (issue.input === undefined || issue.input === null)
        ? `\`${fieldOf(issue)}\` is required.`
        : `\`${fieldOf(issue)}\` must be a string or an array of ${options.parts}.`,
  });
  return z
    .preprocess((value) => {
      if (typeof value === "string") return [new WholeText(value)];
      if (options.absent === "empty" && (value === undefined || value === null)) return [];
      return value;
    }, list)
    .transform((texts) => texts.join(""));
}

const FUNCTION_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A function's name as OpenAI takes it: 1–64 letters, digits, `_` or `-`. */
export const functionName = z
  .string({
    error: (issue) =>
      `\`${fieldOf(issue)}\` must be 1-64 letters, digits, _ or -, got ${shown(issue.input)}.`,
  })
  .regex(FUNCTION_NAME);

/** A JSON Schema object for a tool's input; absent is "no arguments". */
function inputSchema(required: boolean) {
  const schema = z.looseObject(
    { type: z.literal("object").optional() },
    {
      error: (issue) =>
        required
          ? `\`${fieldOf(issue)}\` must be a JSON Schema object.`
          : `\`${fieldOf(issue)}\` must be a JSON Schema object ({"type": "object", "properties": {…}}).`,
    },
  );
  return required ? schema : schema.nullish();
}

/** The fields of a function tool (to spread into the object that holds them): `name`, `description`, `parameters`. */
export const functionToolFields = {
  name: functionName,
  description: optionalString,
  parameters: inputSchema(false),
};

/** Anthropic's client tool: its JSON Schema is `input_schema`, required, checked before the name. */
export const anthropicToolFields = {
  input_schema: inputSchema(true),
  name: functionName,
  description: optionalString,
};

/** Function tools as the MCP tools the models take; a name given twice is refused (`at(i)` names tool i). */
export function toTools(
  specs: ReadonlyArray<{
    name: string;
    description?: string | null | undefined;
    parameters?: Json | null | undefined;
    input_schema?: Json | null | undefined;
  }>,
  at: (index: number) => string,
): Tool[] {
  const seen = new Set<string>();
  return specs.map((spec, i) => {
    if (seen.has(spec.name))
      throw badRequest(`Two tools are named "${spec.name}"; tool names must be unique.`, `${at(i)}.name`);
    seen.add(spec.name);
    const parameters = spec.parameters ?? spec.input_schema ?? { type: "object", properties: {} };
    return {
      name: spec.name,
      ...(spec.description ? { description: spec.description } : {}),
      inputSchema: { ...parameters, type: "object" } as Tool["inputSchema"],
    };
  });
}

/** A tool choice's tool name, which must be one of the request's tools. */
export function namedTool(name: unknown, tools: readonly Tool[], param: string): string {
  if (typeof name !== "string" || !tools.some((t) => t.name === name))
    throw badRequest(
      `\`${param}\` names ${shown(name)}, which is not one of the request's tools (${tools.map((t) => t.name).join(", ") || "none"}).`,
      param,
    );
  return name;
}

/**
 * Where an API's `tool_choice` keeps its parts: Chat Completions nests them (`{type: "function", function: {name}}`,
 * `{type: "allowed_tools", allowed_tools: {mode, tools: [{function: {name}}]}}`), Responses does not
 * (`{type: "function", name}`, `{type: "allowed_tools", mode, tools: [{name}]}`).
 */
export interface ToolChoiceShape {
  /** The part of `{type: "function", …}` holding `name`, and its path; undefined when the choice holds none. */
  functionPart(raw: Json): { part: Json; path: string } | undefined;
  /** The part of `{type: "allowed_tools", …}` holding `mode` and `tools`, and its path; undefined when none. */
  allowedPart(raw: Json): { part: Json; path: string } | undefined;
  /** The part of a listed tool holding its name, and the path below `tools[i]` (`.function`). */
  listedTool(tool: unknown): { part: unknown; path: string };
  /** The accepted forms, for the refusal of any other. */
  forms: string;
}

/**
 * `tool_choice` → ours, the same rules for either API: `none`/`auto`/`required`, a named tool, or `allowed_tools`
 * narrowing `tools` to the listed ones. Default: auto with tools, none without.
 */
export function readToolChoice(
  raw: unknown,
  tools: Tool[],
  shape: ToolChoiceShape,
): { choice: ToolChoice; tools: Tool[] } {
  if (raw === undefined || raw === null) return { choice: tools.length ? "auto" : "none", tools };
  if (raw === "none" || raw === "auto") return { choice: raw, tools };
  if (raw === "required") {
    if (!tools.length)
      throw badRequest('tool_choice "required" needs at least one tool in `tools`.', "tool_choice");
    return { choice: "required", tools };
  }
  const fn = isObject(raw) && raw.type === "function" ? shape.functionPart(raw) : undefined;
  if (fn) return { choice: { name: namedTool(fn.part.name, tools, `${fn.path}.name`) }, tools };
  const allowed = isObject(raw) && raw.type === "allowed_tools" ? shape.allowedPart(raw) : undefined;
  if (allowed) {
    const { part, path } = allowed;
    if (!Array.isArray(part.tools) || part.tools.length === 0)
      throw badRequest(`\`${path}.tools\` must list at least one tool.`, `${path}.tools`);
    const names = part.tools.map((t, i) => {
      const listed = shape.listedTool(t);
      const name = isObject(listed.part) ? listed.part.name : undefined;
      return namedTool(name, tools, `${path}.tools[${i}]${listed.path}.name`);
    });
    const mode = part.mode ?? "auto";
    if (mode !== "auto" && mode !== "required")
      throw badRequest(`\`${path}.mode\` must be "auto" or "required".`, `${path}.mode`);
    return { choice: mode, tools: tools.filter((t) => names.includes(t.name)) };
  }
  throw badRequest(`tool_choice must be ${shape.forms}.`, "tool_choice");
}
