import type { ResponseFormat, SamplingSettings } from "../../core/language-model.js";
import { invalidRequest } from "./openai-api-error.js";

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const SCHEMA_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** A number in [min, max], or undefined when absent or null (OpenAI's clients send null for "default"). */
function numberIn(body: Json, param: string, min: number, max: number): number | undefined {
  const value = body[param];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isFinite(value) || value < min || value > max)
    throw invalidRequest(
      `\`${param}\` must be a number from ${min} to ${max}, got ${JSON.stringify(value)}.`,
      param,
    );
  return value;
}

function parseSeed(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isSafeInteger(value))
    throw invalidRequest(`\`seed\` must be an integer, got ${JSON.stringify(value)}.`, "seed");
  return value;
}

/** `stop`: a string or up to 4 strings, as OpenAI takes it. Empty strings stop nothing and are dropped. */
function parseStop(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const list = typeof value === "string" ? [value] : value;
  if (!Array.isArray(list) || list.length > 4 || list.some((s) => typeof s !== "string"))
    throw invalidRequest("`stop` must be a string or an array of at most 4 strings.", "stop");
  const stops = (list as string[]).filter((s) => s !== "");
  return stops.length ? stops : undefined;
}

/**
 * The request's sampling settings (temperature 0–2, top_p 0–1, presence/frequency penalties −2–2, an integer seed,
 * `stop`), validated with OpenAI's ranges; `undefined` when it sets none. `logprobs` is refused: no backend here
 * returns token probabilities, and answering without them would look like a model that has none.
 */
export function parseSamplingSettings(body: Json): SamplingSettings | undefined {
  if (body.logprobs !== undefined && body.logprobs !== null && body.logprobs !== false) {
    if (body.logprobs !== true) throw invalidRequest("`logprobs` must be true or false.", "logprobs");
    throw invalidRequest("`logprobs` is not supported by this server.", "logprobs", "unsupported_parameter");
  }
  if (body.top_logprobs !== undefined && body.top_logprobs !== null && body.top_logprobs !== 0)
    throw invalidRequest(
      "`top_logprobs` is not supported by this server (it returns no log probabilities).",
      "top_logprobs",
      "unsupported_parameter",
    );
  const settings: SamplingSettings = {};
  const temperature = numberIn(body, "temperature", 0, 2);
  const topP = numberIn(body, "top_p", 0, 1);
  const presencePenalty = numberIn(body, "presence_penalty", -2, 2);
  const frequencyPenalty = numberIn(body, "frequency_penalty", -2, 2);
  const seed = parseSeed(body.seed);
  const stop = parseStop(body.stop);
  if (temperature !== undefined) settings.temperature = temperature;
  if (topP !== undefined) settings.topP = topP;
  if (presencePenalty !== undefined) settings.presencePenalty = presencePenalty;
  if (frequencyPenalty !== undefined) settings.frequencyPenalty = frequencyPenalty;
  if (seed !== undefined) settings.seed = seed;
  if (stop !== undefined) settings.stop = stop;
  return Object.keys(settings).length ? settings : undefined;
}

/**
 * `response_format`: `{"type": "text"}`, `{"type": "json_object"}` or `{"type": "json_schema", "json_schema": {name,
 * schema?, strict?}}` (the schema is optional in OpenAI's spec; a missing one is taken as any JSON object).
 */
export function parseResponseFormat(raw: unknown): ResponseFormat | undefined {
  const usage =
    '`response_format` must be {"type": "text"}, {"type": "json_object"} or {"type": "json_schema", "json_schema": {"name": "…", "schema": {…}}}.';
  return readFormat(raw, "response_format", usage, (format) => {
    if (!isObject(format.json_schema))
      throw invalidRequest(
        '`response_format.json_schema` must be an object: {"name": "…", "schema": {…}, "strict"?: true}.',
        "response_format.json_schema",
      );
    return { spec: format.json_schema, at: "response_format.json_schema" };
  });
}

/**
 * The Responses API's `text.format`: the same three formats, the json_schema fields (`name`, `schema`, `strict`) on
 * the format object itself.
 */
export function parseTextFormat(raw: unknown): ResponseFormat | undefined {
  const usage =
    '`text.format` must be {"type": "text"}, {"type": "json_object"} or {"type": "json_schema", "name": "…", "schema": {…}}.';
  return readFormat(raw, "text.format", usage, (format) => ({ spec: format, at: "text.format" }));
}

function readFormat(
  raw: unknown,
  param: string,
  usage: string,
  schemaSpec: (format: Json) => { spec: Json; at: string },
): ResponseFormat | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isObject(raw)) throw invalidRequest(usage, param);
  if (raw.type === "text" || raw.type === "json_object") return { type: raw.type };
  if (raw.type !== "json_schema") throw invalidRequest(usage, `${param}.type`);
  const { spec, at } = schemaSpec(raw);
  if (typeof spec.name !== "string" || !SCHEMA_NAME.test(spec.name))
    throw invalidRequest(
      `\`${at}.name\` must be 1-64 letters, digits, _ or -, got ${JSON.stringify(spec.name)}.`,
      `${at}.name`,
    );
  if (spec.schema !== undefined && spec.schema !== null && !isObject(spec.schema))
    throw invalidRequest(`\`${at}.schema\` must be a JSON Schema object.`, `${at}.schema`);
  if (spec.strict !== undefined && spec.strict !== null && typeof spec.strict !== "boolean")
    throw invalidRequest(`\`${at}.strict\` must be true or false.`, `${at}.strict`);
  return {
    type: "json_schema",
    name: spec.name,
    schema: isObject(spec.schema) ? spec.schema : { type: "object" },
    ...(typeof spec.strict === "boolean" ? { strict: spec.strict } : {}),
  };
}
