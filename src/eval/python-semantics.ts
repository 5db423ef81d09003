/**
 * The Python semantics BFCL's checker compares values with, over JSON values: its type names (`type(value)`), `==`
 * and `in`, and its string standardisation. Two deliberate differences, because parsed JSON cannot carry what Python
 * can: a whole number is an `int` unless the schema says `float` (so `5.0` passes for an integer parameter: JSON
 * parsers keep no difference between 5 and 5.0), and a boolean never equals a number (Python's `True == 1`).
 */

export type PythonType = "NoneType" | "bool" | "int" | "float" | "str" | "list" | "dict";

/**
 * `type(value)` as BFCL's checker would see it. `expected` is the type the doc asks for: a number is a `float` where a
 * float is expected (Python promotes an int there, and JSON cannot tell 2.0 from 2 anyway), else an `int` when whole.
 */
export function pythonType(value: unknown, expected?: PythonType): PythonType {
  if (value === null || value === undefined) return "NoneType";
  switch (typeof value) {
    case "boolean":
      return "bool";
    case "number":
      return expected === "float" || !Number.isInteger(value) ? "float" : "int";
    case "string":
      return "str";
    default:
      return Array.isArray(value) ? "list" : "dict";
  }
}

/** Python's `==` on JSON values (numbers by value, lists in order, dicts by keys), booleans kept apart from numbers. */
export function pythonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") {
    // NaN is not equal to itself in Python either.
    return false;
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => pythonEquals(item, other[i]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return (
    keys.length === Object.keys(right).length &&
    keys.every((key) => Object.hasOwn(right, key) && pythonEquals(left[key], right[key]))
  );
}

/** Python's `value in options`. */
export function pythonIn(value: unknown, options: readonly unknown[]): boolean {
  return options.some((option) => pythonEquals(value, option));
}

/**
 * BFCL's string standardisation: drop spaces and `,./-_*^`, lowercase, single quotes to double. "New York, NY" and
 * "new-york ny." compare equal; "a&b" and "a and b" do not.
 */
export function standardizeString(text: string): string {
  return text
    .replace(/[ ,./\-_*^]/g, "")
    .toLowerCase()
    .replace(/'/g, '"');
}

/** What Python's `for x in value` walks for a candidate: a list's items, a string's characters, else the value. */
export function pythonItems(value: unknown): unknown[] {
  if (Array.isArray(value)) return value;
  if (typeof value === "string") return [...value];
  return [value];
}

/** Python's `int(text)`: optional sign, digits with single underscores between them, surrounding whitespace. */
export function pythonInt(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^[+-]?\d(?:_?\d)*$/.test(trimmed)) return undefined;
  return Number(trimmed.replace(/_/g, ""));
}

/** Python's `float(text)`: decimal and exponent forms, `inf`, `infinity` and `nan` in any case. */
export function pythonFloat(text: string): number | undefined {
  const trimmed = text.trim();
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(trimmed);
  if (special) {
    if (special[2]!.toLowerCase() === "nan") return Number.NaN;
    return special[1] === "-" ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  const digits = String.raw`\d(?:_?\d)*`;
  const number = new RegExp(`^[+-]?(?:(?:${digits})?\\.${digits}|${digits}\\.?)(?:[eE][+-]?${digits})?$`);
  if (!number.test(trimmed)) return undefined;
  return Number(trimmed.replace(/_/g, ""));
}

/** Python's `str.strip(chars)`: remove any of `chars` from both ends. */
export function stripChars(text: string, chars: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && chars.includes(text[start]!)) start++;
  while (end > start && chars.includes(text[end - 1]!)) end--;
  return text.slice(start, end);
}
