import { z } from "zod";
import type { ResponseFormat, SamplingSettings } from "../../core/language-model.js";
import { fieldOf, flag, functionName, type Json, shown, withCode } from "./parse-request-fields.js";

/** A number in [min, max], or undefined when absent or null (OpenAI's clients send null for "default"). */
export function numberIn(min: number, max: number) {
  return z
    .number({
      error: (issue) =>
        `\`${fieldOf(issue)}\` must be a number from ${min} to ${max}, got ${shown(issue.input)}.`,
    })
    .min(min)
    .max(max)
    .nullish();
}

const unset = (value: unknown) => value === undefined || value === null;

/** `logprobs` and `top_logprobs`: no backend here returns token probabilities, and answering without them would look like a model that has none. */
const logprobsFields = {
  logprobs: flag.refine((value) => value !== true, {
    error: "`logprobs` is not supported by this server.",
    ...withCode("unsupported_parameter"),
  }),
  top_logprobs: z
    .unknown()
    .optional()
    .refine((value) => unset(value) || value === 0, {
      error: "`top_logprobs` is not supported by this server (it returns no log probabilities).",
      ...withCode("unsupported_parameter"),
    }),
};

/**
 * The sampling fields of a chat completions request, in the order they are checked, with OpenAI's ranges: temperature
 * 0–2, top_p 0–1, presence/frequency penalties −2–2, an integer seed, `stop` a string or up to 4 strings.
 */
export const samplingFields = {
  ...logprobsFields,
  temperature: numberIn(0, 2),
  top_p: numberIn(0, 1),
  presence_penalty: numberIn(-2, 2),
  frequency_penalty: numberIn(-2, 2),
  seed: z
    .number({ error: (issue) => `\`seed\` must be an integer, got ${shown(issue.input)}.` })
    .int()
    .nullish(),
  stop: z
    .union([z.string(), z.array(z.string()).max(4)], {
      error: "`stop` must be a string or an array of at most 4 strings.",
    })
    .nullish(),
};

/** The Responses API's sampling fields: temperature and top_p (the chat API's ranges); no log probabilities. */
export const responsesSamplingFields = {
  temperature: samplingFields.temperature,
  top_p: samplingFields.top_p,
  top_logprobs: logprobsFields.top_logprobs,
};

/** The settings a parsed request sets, as the model takes them; undefined when it sets none. Empty stop strings stop nothing and are dropped. */
export function samplingOf(fields: {
  temperature?: number | null | undefined;
  top_p?: number | null | undefined;
  presence_penalty?: number | null | undefined;
  frequency_penalty?: number | null | undefined;
  seed?: number | null | undefined;
  stop?: string | string[] | null | undefined;
}): SamplingSettings | undefined {
  const settings: SamplingSettings = {};
  if (typeof fields.temperature === "number") settings.temperature = fields.temperature;
  if (typeof fields.top_p === "number") settings.topP = fields.top_p;
  if (typeof fields.presence_penalty === "number") settings.presencePenalty = fields.presence_penalty;
  if (typeof fields.frequency_penalty === "number") settings.frequencyPenalty = fields.frequency_penalty;
  if (typeof fields.seed === "number") settings.seed = fields.seed;
  const stops = (typeof fields.stop === "string" ? [fields.stop] : (fields.stop ?? [])).filter(
    (s) => s !== "",
  );
  if (stops.length) settings.stop = stops;
  return Object.keys(settings).length ? settings : undefined;
}

/** A json_schema format's own fields: its name, its schema (optional in OpenAI's spec: any JSON object), `strict`. */
const jsonSchemaSpec = {
  name: functionName,
  schema: z
    .looseObject({}, { error: (issue) => `\`${fieldOf(issue)}\` must be a JSON Schema object.` })
    .nullish(),
  strict: flag,
};

/** The three answer formats, `type` checked first (`usage` is the message for anything else). */
function formatSchema<S extends z.core.$ZodTypeDiscriminable>(usage: string, jsonSchema: S) {
  const type = z.enum(["text", "json_object", "json_schema"], { error: usage });
  const variants = z.discriminatedUnion("type", [
    z.looseObject({ type: z.literal("text") }),
    z.looseObject({ type: z.literal("json_object") }),
    jsonSchema,
  ]);
  // The variant's fields are read once its type is known (its input is the typed object the first stage gives).
  const typed = variants as unknown as z.ZodType<
    Json,
    { [key: string]: unknown; type: z.infer<typeof type> }
  >;
  return z.looseObject({ type }, { error: usage }).pipe(typed).nullish();
}

/**
 * `response_format`: `{"type": "text"}`, `{"type": "json_object"}` or `{"type": "json_schema", "json_schema": {name,
 * schema?, strict?}}`.
 */
export const responseFormatField = formatSchema(
  '`response_format` must be {"type": "text"}, {"type": "json_object"} or {"type": "json_schema", "json_schema": {"name": "…", "schema": {…}}}.',
  z.looseObject({
    type: z.literal("json_schema"),
    json_schema: z.looseObject(jsonSchemaSpec, {
      error:
        '`response_format.json_schema` must be an object: {"name": "…", "schema": {…}, "strict"?: true}.',
    }),
  }),
);

/** The Responses API's `text.format`: the same three formats, the json_schema fields on the format object itself. */
export const textFormatField = formatSchema(
  '`text.format` must be {"type": "text"}, {"type": "json_object"} or {"type": "json_schema", "name": "…", "schema": {…}}.',
  z.looseObject({ type: z.literal("json_schema"), ...jsonSchemaSpec }),
);

/** A parsed format as the model takes it (a json_schema without a schema: any JSON object). */
export function responseFormatOf(format: Json | null | undefined): ResponseFormat | undefined {
  if (!format) return undefined;
  if (format.type === "text" || format.type === "json_object") return { type: format.type };
  const spec = (format.json_schema ?? format) as {
    name: string;
    schema?: Json | null;
    strict?: boolean | null;
  };
  return {
    type: "json_schema",
    name: spec.name,
    schema: spec.schema ?? { type: "object" },
    ...(typeof spec.strict === "boolean" ? { strict: spec.strict } : {}),
  };
}
