import type { GbnfJsonSchema } from "node-llama-cpp";

export interface GbnfSchemaOptions {
  /**
   * Upper bound put on argument strings (a smaller maxLength of the schema wins). Tiny (random or barely trained)
   * models never close a string on their own; a bound lets the grammar close it. `undefined`: no bound.
   */
  maxStringLength?: number;
  /**
   * String formats written as the closed list of their values (`format: "time-zone"` → every zone name). Only where
   * the schema becomes a grammar and nothing else (text mode's call body): node-llama-cpp's native function calling
   * also prints `params` into the system prompt, where 400-odd names would cost thousands of tokens on every request.
   */
  enumerations?: Readonly<Record<string, () => readonly string[]>>;
  /**
   * Plain strings (no enum, pattern or format the grammar writes; no maxLength under 100, minLength at most 1) become the placeholder
   * `COPY_PLACEHOLDER` (or `COPY_PLACEHOLDER_NONEMPTY` for minLength 1), which the call-body grammar replaces with a
   * copy-constrained string (copy-grammar.ts).
   */
  copyStrings?: boolean;
}

/** Stand-ins a JSON-schema grammar writes as a literal, replaced by a copy-constrained string's rule. */
export const COPY_PLACEHOLDER = "__toolbridge_copy__";
export const COPY_PLACEHOLDER_NONEMPTY = "__toolbridge_copy1__";
/** A schema's maxLength under this keeps the string a plain (length-bounded) one: a copy's length is not bounded. */
const MIN_COPY_MAX_LENGTH = 100;

type JsonObject = Record<string, unknown>;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
const SCALARS = new Set(["string", "number", "integer", "boolean", "null"]);
const FORMATS = new Set(["date-time", "time", "date"]);
const MAX_ENUMERATED_INTEGERS = 256;

/** The inclusive [min, max] an integer schema allows, when both ends are bounded. */
function integerRange(node: JsonObject): [number, number] | undefined {
  const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);
  const lows: number[] = [];
  const highs: number[] = [];
  if (num(node.minimum) !== undefined) lows.push(Math.ceil(node.minimum as number));
  if (num(node.exclusiveMinimum) !== undefined) lows.push(Math.floor(node.exclusiveMinimum as number) + 1);
  if (num(node.maximum) !== undefined) highs.push(Math.floor(node.maximum as number));
  if (num(node.exclusiveMaximum) !== undefined) highs.push(Math.ceil(node.exclusiveMaximum as number) - 1);
  if (lows.length === 0 || highs.length === 0) return undefined;
  const low = Math.max(...lows);
  const high = Math.min(...highs);
  return low <= high ? [low, high] : undefined;
}

/**
 * A tool's JSON Schema in the subset node-llama-cpp turns into a grammar. What the grammar cannot express (patterns,
 * numeric ranges, other formats) is dropped here and still checked by the loop's validator, so the grammar only ever
 * narrows towards valid calls. Local `$ref`s into `$defs`/`definitions` are inlined (cycles become "any value").
 */
export function toGbnfJsonSchema(schema: unknown, options: GbnfSchemaOptions = {}): GbnfJsonSchema {
  const root = isObject(schema) ? schema : {};
  const defs: JsonObject = {
    ...(isObject(root.definitions) ? root.definitions : {}),
    ...(isObject(root.$defs) ? root.$defs : {}),
  };
  const convert = (node: unknown, seen: ReadonlySet<string>): GbnfJsonSchema | undefined => {
    if (node === true || node === undefined) return undefined;
    if (!isObject(node)) return undefined;
    const description = typeof node.description === "string" ? { description: node.description } : {};
    if (typeof node.$ref === "string") {
      const key = node.$ref.replace(/^#\/(\$defs|definitions)\//, "");
      if (seen.has(key) || !(key in defs)) return undefined;
      return convert(defs[key], new Set([...seen, key]));
    }
    if ("const" in node && isScalar(node.const)) return { const: node.const, ...description };
    if (Array.isArray(node.enum)) {
      const values = node.enum.filter(isScalar);
      if (values.length > 0) return { enum: values, ...description };
    }
    const alternatives = Array.isArray(node.oneOf)
      ? node.oneOf
      : Array.isArray(node.anyOf)
        ? node.anyOf
        : undefined;
    if (alternatives) {
      const converted = alternatives.map((a) => convert(a, seen));
      if (converted.some((c) => c === undefined)) return undefined;
      return { oneOf: converted as GbnfJsonSchema[], ...description };
    }
    const type = node.type;
    if (Array.isArray(type)) {
      const types = type.filter((t): t is string => typeof t === "string");
      if (types.length === 0) return undefined;
      if (types.length === 1) return convert({ ...node, type: types[0] }, seen);
      const parts = types.map((t) => convert({ ...node, type: t }, seen));
      return parts.some((p) => p === undefined) ? undefined : { oneOf: parts as GbnfJsonSchema[] };
    }
    switch (type) {
      case "string": {
        // A zone the model copies out of a request ("Europe/Vilnius") stays a zone that exists: a small model that
        // drifts mid-name ("Europe/Vilius") is held to the names that continue what it has written.
        const values = typeof node.format === "string" ? options.enumerations?.[node.format] : undefined;
        if (values) return { enum: [...values()], ...description };
        if (typeof node.format === "string" && FORMATS.has(node.format)) {
          return { type: "string", format: node.format as "date-time" | "time" | "date", ...description };
        }
        const minLength = typeof node.minLength === "number" ? node.minLength : 0;
        if (
          options.copyStrings &&
          node.pattern === undefined &&
          minLength <= 1 &&
          !(typeof node.maxLength === "number" && node.maxLength < MIN_COPY_MAX_LENGTH)
        )
          return { const: minLength === 1 ? COPY_PLACEHOLDER_NONEMPTY : COPY_PLACEHOLDER, ...description };
        const min = typeof node.minLength === "number" ? { minLength: node.minLength } : {};
        const bounds = [node.maxLength, options.maxStringLength].filter(
          (n): n is number => typeof n === "number",
        );
        const max = bounds.length ? { maxLength: Math.min(...bounds) } : {};
        return { type: "string", ...min, ...max, ...description };
      }
      case "integer": {
        const range = integerRange(node);
        // The grammar has no numeric bounds; a small range becomes the list of its values so calls stay in range.
        if (range && range[1] - range[0] < MAX_ENUMERATED_INTEGERS) {
          return {
            enum: Array.from({ length: range[1] - range[0] + 1 }, (_, i) => range[0] + i),
            ...description,
          };
        }
        return { type, ...description };
      }
      case "number":
      case "boolean":
      case "null":
        return { type, ...description };
      case "array": {
        const items = convert(node.items, seen);
        return {
          type: "array",
          ...(items ? { items } : {}),
          ...(typeof node.minItems === "number" ? { minItems: node.minItems } : {}),
          ...(typeof node.maxItems === "number" ? { maxItems: node.maxItems } : {}),
          ...description,
        };
      }
      case "object":
        return convertObject(node, seen, description);
      default:
        if (isObject(node.properties)) return convertObject(node, seen, description);
        return undefined;
    }
  };
  const convertObject = (
    node: JsonObject,
    seen: ReadonlySet<string>,
    description: object,
  ): GbnfJsonSchema => {
    const properties: Record<string, GbnfJsonSchema> = {};
    for (const [key, value] of Object.entries(isObject(node.properties) ? node.properties : {})) {
      // A property whose schema the grammar cannot express may hold any JSON value.
      properties[key] = convert(value, seen) ?? ANY;
    }
    const required = Array.isArray(node.required)
      ? node.required.filter((r): r is string => typeof r === "string" && r in properties)
      : [];
    const extra = node.additionalProperties;
    return {
      type: "object",
      properties,
      required,
      additionalProperties:
        extra === false ? false : isObject(extra) ? (convert(extra, seen) ?? true) : !node.properties,
      ...description,
    } as GbnfJsonSchema;
  };
  const converted = convert(root, new Set());
  if (converted && (converted as { type?: unknown }).type === "object") return converted;
  return { type: "object", properties: {}, additionalProperties: true } as GbnfJsonSchema;
}

const ANY: GbnfJsonSchema = { type: ["string", "number", "boolean", "null"] };

function isScalar(v: unknown): v is string | number | boolean | null {
  return v === null || (typeof v !== "object" && SCALARS.has(typeof v === "number" ? "number" : typeof v));
}
