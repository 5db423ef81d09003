import type { Tool } from "@modelcontextprotocol/server";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormatsModule from "ajv-formats";
import { ToolDefinitionError } from "./errors.js";
import { ANNOTATION_FORMATS } from "./schema-formats.js";

type AddFormats = (ajv: Ajv | Ajv2020) => unknown;
// ajv-formats is CommonJS with `exports.default`; under NodeNext the default import is the module object at type level.
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

function createAjv<T extends Ajv | Ajv2020>(instance: T): T {
  addFormats(instance);
  // Annotations: get_time & co. resolve city names and abbreviations too, and their error names the close matches.
  for (const format of ANNOTATION_FORMATS) instance.addFormat(format, true);
  return instance;
}

// strict: false — tool schemas come from many authors and MCP servers; unknown keywords are annotations, not errors.
const options = { allErrors: true, strict: false, validateFormats: true } as const;
const draft07 = createAjv(new Ajv(options));
const draft2020 = createAjv(new Ajv2020(options));

/** Compiled validators, keyed by the schema object itself: each tool's schema is compiled exactly once. */
const compiled = new WeakMap<object, ValidateFunction>();

function pickAjv(schema: Record<string, unknown>): Ajv | Ajv2020 {
  const declared = typeof schema.$schema === "string" ? schema.$schema : "";
  // MCP 2025-11-25 makes 2020-12 the default dialect; older drafts are declared explicitly when used.
  return /draft-0[4-7]/.test(declared) ? draft07 : draft2020;
}

/** Compile (or fetch the cached validator for) a JSON Schema. Throws ToolDefinitionError for a broken schema. */
export function compileToolSchema(
  schema: object,
  label: string | (() => string) = "schema",
): ValidateFunction {
  const cached = compiled.get(schema);
  if (cached) return cached;
  const record = schema as Record<string, unknown>;
  let validate: ValidateFunction;
  try {
    const ajv = pickAjv(record);
    // Drafts 04/06 share draft-07's vocabulary closely enough for tool schemas; let ajv skip the meta-schema lookup.
    const { $schema, ...rest } = record;
    validate = ajv.compile(typeof $schema === "string" && /draft-0[46]/.test($schema) ? rest : record);
  } catch (error) {
    const name = typeof label === "function" ? label() : label;
    throw new ToolDefinitionError(`The ${name} is not a valid JSON Schema: ${(error as Error).message}`);
  }
  compiled.set(schema, validate);
  return validate;
}

export type ValidationResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly issues: readonly string[] };

const VALID: ValidationResult = Object.freeze({ ok: true });

/**
 * A failed validation whose messages are written only when read: a caller that just needs pass/fail (a router trying
 * candidate calls, a benchmark) should not pay for formatting. ajv hands out a fresh errors array per call, so
 * holding on to it is safe. A class (getter on the prototype) keeps the allocation as cheap as a plain object.
 */
class ValidationFailure {
  readonly ok = false;
  private described: string[] | undefined;
  constructor(
    private readonly errors: readonly ErrorObject[],
    private readonly value: unknown,
  ) {}
  get issues(): readonly string[] {
    this.described ??= describeValidationErrors(this.errors, this.value);
    return this.described;
  }
  toJSON() {
    return { ok: false, issues: this.issues };
  }
}

/** Validate arguments against a tool's input schema; issues are one line each, written for a model to act on. */
export function validateToolInput(tool: Pick<Tool, "name" | "inputSchema">, args: unknown): ValidationResult {
  const validate =
    compiled.get(tool.inputSchema) ?? compileToolSchema(tool.inputSchema, () => `${tool.name} inputSchema`);
  return validate(args) ? VALID : new ValidationFailure(validate.errors ?? [], args);
}

/** Validate a value against any compiled schema (used for outputSchema checks). */
export function validateAgainstSchema(schema: object, value: unknown, label?: string): ValidationResult {
  const validate = compileToolSchema(schema, label);
  return validate(value) ? VALID : new ValidationFailure(validate.errors ?? [], value);
}

/** `/items/0/name` → `items[0].name`; the root is "arguments". */
function formatPath(instancePath: string): string {
  if (instancePath === "") return "";
  let out = "";
  for (const raw of instancePath.slice(1).split("/")) {
    const segment = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (/^\d+$/.test(segment)) out += `[${segment}]`;
    else out += out === "" ? segment : `.${segment}`;
  }
  return out;
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function subject(path: string): string {
  return path === "" ? "arguments" : `\`${path}\``;
}

function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return `a string (${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)})`;
  if (typeof value === "number")
    return Number.isInteger(value) ? `an integer (${value})` : `a number (${value})`;
  if (typeof value === "object") return "an object";
  return `${typeof value === "boolean" ? "a boolean" : typeof value} (${String(value)})`;
}

function valueAt(root: unknown, instancePath: string): unknown {
  let current: unknown = root;
  if (instancePath === "") return current;
  for (const raw of instancePath.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (current === null || typeof current !== "object") return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

const TYPE_NAMES: Record<string, string> = {
  string: "a string",
  number: "a number",
  integer: "an integer",
  boolean: "a boolean (true or false)",
  object: "an object",
  array: "an array",
  null: "null",
};

function describeOne(error: ErrorObject, root: unknown): string {
  const path = formatPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case "required":
      return `${subject(join(path, String(params.missingProperty)))} is required`;
    case "additionalProperties":
    case "unevaluatedProperties": {
      const key = String(params.additionalProperty ?? params.unevaluatedProperty);
      return `${subject(join(path, key))} is not an accepted argument; remove it`;
    }
    case "type": {
      const expected = String(params.type)
        .split(",")
        .map((t) => TYPE_NAMES[t] ?? t)
        .join(" or ");
      return `${subject(path)} must be ${expected}, got ${describeValue(valueAt(root, error.instancePath))}`;
    }
    case "enum": {
      const allowed = (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ");
      return `${subject(path)} must be one of ${allowed}`;
    }
    case "const":
      return `${subject(path)} must be ${JSON.stringify(params.allowedValue)}`;
    case "format":
      return `${subject(path)} must be a valid ${String(params.format)}`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `${subject(path)} must be ${String(params.comparison)} ${String(params.limit)}`;
    case "minLength":
      return `${subject(path)} must be at least ${String(params.limit)} characters long`;
    case "maxLength":
      return `${subject(path)} must be at most ${String(params.limit)} characters long`;
    case "minItems":
      return `${subject(path)} must have at least ${String(params.limit)} items`;
    case "maxItems":
      return `${subject(path)} must have at most ${String(params.limit)} items`;
    case "pattern":
      return `${subject(path)} must match the pattern ${String(params.pattern)}`;
    case "multipleOf":
      return `${subject(path)} must be a multiple of ${String(params.multipleOf)}`;
    case "uniqueItems":
      return `${subject(path)} must not contain duplicate items (items ${String(params.j)} and ${String(params.i)} are equal)`;
    case "anyOf":
    case "oneOf":
      return `${subject(path)} does not match any of the allowed shapes`;
    default:
      return `${subject(path)} ${error.message ?? "is invalid"}`;
  }
}

/** One line per problem; sub-errors of a failed anyOf/oneOf are folded into that one line. */
export function describeValidationErrors(errors: readonly ErrorObject[], root: unknown): string[] {
  const combinators = errors.filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf");
  const lines: string[] = [];
  for (const error of errors) {
    const insideCombinator = combinators.some(
      (c) => c !== error && error.schemaPath.startsWith(`${c.schemaPath}/`),
    );
    if (insideCombinator && error.keyword !== "anyOf" && error.keyword !== "oneOf") continue;
    const line = describeOne(error, root);
    if (!lines.includes(line)) lines.push(line);
  }
  return lines;
}
