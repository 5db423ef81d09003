import type { Tool } from "@modelcontextprotocol/server";
import { ToolbridgeError } from "../core/toolbridge-error.js";

/**
 * BFCL (Berkeley Function Calling Leaderboard) function docs use their own schema dialect: Python, Java and
 * JavaScript type names (`dict`, `float`, `tuple`, `any`, `HashMap`, `long`, ...), a non-standard `optional`
 * flag and `default` values that often have the wrong type. This module turns such a doc into an MCP `Tool`
 * whose `inputSchema` is plain JSON Schema that compiles under ajv's draft-07 and 2020-12 dialects alike
 * (no `$schema`, only keywords whose meaning is the same in both).
 */

/** One schema node of a BFCL function doc, as found in the BFCL data files. */
export interface BfclParameterSchema {
  type?: string;
  description?: string;
  properties?: Record<string, BfclParameterSchema>;
  items?: BfclParameterSchema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  format?: string;
  maximum?: number;
  minimum?: number;
  minItems?: number;
  maxItems?: number;
  /** Non-standard; `true`, `"true"`, `"True"`, `"yes"` on properties, a list of names at the top level. Dropped. */
  optional?: unknown;
}

/** A BFCL function doc: `{name, description, parameters}`. */
export interface BfclFunctionDoc {
  name: string;
  description?: string;
  parameters: BfclParameterSchema;
}

/** A JSON Schema node as produced by the converter. */
export type JsonSchema = { [keyword: string]: unknown };

/** Thrown when a BFCL doc cannot be converted; `path` locates the offending node (e.g. `properties.x.items`). */
export class BfclSchemaError extends ToolbridgeError {
  override name = "BfclSchemaError";
  constructor(
    message: string,
    readonly path: string,
    /** The BFCL `type` string that could not be mapped, when that is the problem. */
    readonly bfclType?: unknown,
  ) {
    super(message);
  }
}

type JsonType = "object" | "number" | "integer" | "string" | "boolean" | "array";

/** BFCL type name → JSON Schema type. `null` means "leave untyped" (any value). */
const TYPE_MAP: Readonly<Record<string, JsonType | null>> = {
  dict: "object",
  HashMap: "object",
  float: "number",
  double: "number",
  integer: "integer",
  long: "integer",
  byte: "integer",
  short: "integer",
  Bigint: "integer",
  string: "string",
  String: "string",
  char: "string",
  boolean: "boolean",
  Boolean: "boolean",
  array: "array",
  tuple: "array",
  Array: "array",
  ArrayList: "array",
  any: null,
  "": null,
};

const SUPPORTED_TYPES = Object.keys(TYPE_MAP)
  .map((t) => JSON.stringify(t))
  .join(", ");

function mapType(type: unknown, path: string): JsonType | null {
  // A missing type is treated like `any`/"": BFCL itself would send such a param as a string, but for
  // validation the lenient reading is the one that never rejects a value the doc author meant to allow.
  if (type === undefined) return null;
  if (typeof type === "string" && Object.hasOwn(TYPE_MAP, type)) return TYPE_MAP[type] ?? null;
  throw new BfclSchemaError(
    `Unsupported BFCL type ${JSON.stringify(type)} at ${path || "(root)"}. Supported types: ${SUPPORTED_TYPES}. ` +
      "Fix the function doc or map the type to one of these.",
    path,
    type,
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function join(path: string, segment: string): string {
  return path ? `${path}.${segment}` : segment;
}

/**
 * Does `value` satisfy the converted `schema`? A small structural check, enough to decide whether a BFCL
 * `default` may be kept (type, enum, items, properties — the only keywords the converter emits).
 */
function fitsSchema(value: unknown, schema: JsonSchema): boolean {
  if (Array.isArray(schema.enum) && !schema.enum.some((option) => deepEqual(option, value))) return false;
  switch (schema.type) {
    case undefined:
      return true;
    case "object": {
      if (!isPlainObject(value)) return false;
      const properties = isPlainObject(schema.properties) ? schema.properties : {};
      return Object.entries(value).every(([key, item]) => {
        const sub = properties[key];
        return sub === undefined || fitsSchema(item, sub as JsonSchema);
      });
    }
    case "array":
      return (
        Array.isArray(value) &&
        (!isPlainObject(schema.items) || value.every((item) => fitsSchema(item, schema.items as JsonSchema)))
      );
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "string":
      return typeof value === "string";
    case "boolean":
      return typeof value === "boolean";
    default:
      return false;
  }
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b))
    return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}

/** Keywords that only mean something for one JSON type; emitted only when the node has that type. */
const NUMBER_KEYWORDS = ["maximum", "minimum"] as const;
const ARRAY_KEYWORDS = ["minItems", "maxItems"] as const;

function convertNode(node: unknown, path: string): JsonSchema {
  if (!isPlainObject(node)) {
    throw new BfclSchemaError(
      `Expected a schema object at ${path || "(root)"}, got ${JSON.stringify(node)}.`,
      path,
    );
  }
  const type = mapType(node.type, path);
  const out: JsonSchema = {};
  if (type !== null) out.type = type;
  if (typeof node.description === "string") out.description = node.description;
  if (Array.isArray(node.enum)) out.enum = node.enum;
  // `format` is defined for strings only; ajv's strict mode rejects it on other types.
  if (typeof node.format === "string" && (type === "string" || type === null)) out.format = node.format;
  // Bounds that do not apply to the converted type would be no-ops in JSON Schema, and strict validators
  // (ajv with strictTypes) refuse them — e.g. BFCL's `irrelevance_128` puts minItems on integer items.
  if (type === "number" || type === "integer") {
    for (const keyword of NUMBER_KEYWORDS)
      if (typeof node[keyword] === "number") out[keyword] = node[keyword];
  }
  if (type === "array") {
    for (const keyword of ARRAY_KEYWORDS) if (Number.isInteger(node[keyword])) out[keyword] = node[keyword];
    if (node.items !== undefined) out.items = convertNode(node.items, join(path, "items"));
  }
  if (type === "object") {
    if (node.properties !== undefined) {
      if (!isPlainObject(node.properties)) {
        throw new BfclSchemaError(
          `Expected "properties" at ${join(path, "properties")} to be an object of schemas.`,
          join(path, "properties"),
        );
      }
      const properties: Record<string, JsonSchema> = {};
      for (const [key, value] of Object.entries(node.properties)) {
        properties[key] = convertNode(value, join(join(path, "properties"), key));
      }
      out.properties = properties;
    }
    // Kept even when it names keys the doc does not describe (BFCL's parallel_29 does): the doc author
    // still meant those keys to be present.
    if (Array.isArray(node.required) && node.required.every((r) => typeof r === "string")) {
      out.required = [...node.required];
    }
  }
  // `default` is only an annotation in JSON Schema, and BFCL's are often the wrong type ("false" on a
  // boolean, "None" on a dict, "5 years" on an integer). Validators with default checking (ajv's
  // `useDefaults`, OpenAI strict mode, schema linters) reject or apply those, so only a default the schema
  // itself accepts survives.
  if (node.default !== undefined && fitsSchema(node.default, out)) out.default = node.default;
  // `optional` is dropped: whether a param may be left out is what `required` says.
  return out;
}

/**
 * Convert a BFCL parameter schema (normally a function doc's `parameters`, `type: "dict"`) to JSON Schema.
 * An object at the root gets `additionalProperties: false`, mirroring BFCL's "unexpected param" rule; nested
 * objects stay open, as BFCL never checks their keys against the doc. The root's `default` and `optional`
 * (both non-standard there) are dropped.
 *
 * @throws BfclSchemaError on an unknown type name or a malformed node, naming the path.
 */
export function convertBfclSchema(parameters: BfclParameterSchema): JsonSchema {
  const schema = convertNode(parameters, "");
  delete schema.default;
  if (schema.type === "object") schema.additionalProperties = false;
  return schema;
}

/**
 * Convert a BFCL function doc to an MCP `Tool`. The name is kept as-is: BFCL names contain dots
 * (`math.roots.cubic`, Java `Class.method`), which MCP tool names allow.
 *
 * @throws BfclSchemaError when the parameters are not an object schema or contain an unknown type.
 */
export function convertBfclFunctionToTool(doc: BfclFunctionDoc): Tool {
  if (!isPlainObject(doc) || typeof doc.name !== "string" || doc.name === "") {
    throw new BfclSchemaError("A BFCL function doc needs a non-empty string `name`.", "name");
  }
  let schema: JsonSchema;
  try {
    schema = convertBfclSchema(doc.parameters);
  } catch (error) {
    if (!(error instanceof BfclSchemaError)) throw error;
    throw new BfclSchemaError(`BFCL function "${doc.name}": ${error.message}`, error.path, error.bfclType);
  }
  if (schema.type !== "object") {
    throw new BfclSchemaError(
      `BFCL function "${doc.name}": parameters must be a dict (an object schema), got type ${JSON.stringify(
        doc.parameters.type,
      )}.`,
      "",
      doc.parameters.type,
    );
  }
  const tool: Tool = { name: doc.name, inputSchema: { ...schema, type: "object" } };
  if (typeof doc.description === "string") tool.description = doc.description;
  return tool;
}
