import type { BfclFunctionDoc, BfclParameterSchema } from "../tools/bfcl-schema.js";
import type { BfclExpectedCall, BfclLanguage } from "./bfcl-dataset.js";
import { type CheckResult, failed, PASSED } from "./failure-class.js";
import { JAVA_PYTHON_TYPES, javaSourceValue } from "./java-source-value.js";
import { JAVASCRIPT_PYTHON_TYPES, javascriptSourceValue } from "./javascript-source-value.js";
import {
  type PythonType,
  pythonEquals,
  pythonIn,
  pythonItems,
  pythonType,
  standardizeString,
} from "./python-semantics.js";

/** A call as the model made it, its name mapped back to the entry's function name. */
export interface ModelCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** BFCL's Python reading of its doc types (`any` is a string; a `tuple` arrives as a list). */
const PYTHON_TYPES: Readonly<Record<string, PythonType>> = {
  string: "str",
  integer: "int",
  float: "float",
  boolean: "bool",
  array: "list",
  tuple: "list",
  dict: "dict",
  any: "str",
};

const NESTED_PYTHON = new Set(["array", "tuple"]);
const NESTED_JAVA = new Set(["Array", "ArrayList"]);

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}

function candidatesText(candidates: readonly unknown[]): string {
  return describe(candidates.filter((c) => c !== ""));
}

/** The Python type of each language's doc type; undefined for a type BFCL does not know (then any type passes). */
function expectedType(type: string | undefined, language: BfclLanguage): PythonType | undefined {
  if (type === undefined) return undefined;
  const table =
    language === "java" ? JAVA_PYTHON_TYPES : language === "javascript" ? JAVASCRIPT_PYTHON_TYPES : {};
  return table[type] ?? PYTHON_TYPES[type] ?? JAVA_PYTHON_TYPES[type] ?? JAVASCRIPT_PYTHON_TYPES[type];
}

function candidateType(
  candidates: readonly unknown[],
  expected: PythonType | undefined,
): PythonType | undefined {
  const first = candidates.find((c) => c !== "");
  return first === undefined ? undefined : pythonType(first, expected);
}

/**
 * BFCL's type check: the value has the doc's type, or the type of the first candidate (a variable reference, a
 * `null` answer). One level of item types for lists. Returns whether the value is read as a variable (compared raw).
 */
function checkType(
  param: string,
  value: unknown,
  candidates: readonly unknown[],
  expected: PythonType,
  nested: PythonType | undefined,
): { ok: true; variable: boolean } | { ok: false; result: CheckResult } {
  const answerType = candidateType(candidates, expected);
  const variable = answerType !== undefined && answerType !== expected;
  const actual = pythonType(value, expected);
  if (actual === expected) {
    if (nested === undefined) return { ok: true, variable };
    for (const candidate of candidates) {
      // A candidate that is not a list (the "may be omitted" marker) accepts any items.
      if (!Array.isArray(candidate)) return { ok: true, variable };
      const itemType = candidateType(candidate, nested);
      const items = value as unknown[];
      if (items.every((item) => [nested, itemType].includes(pythonType(item, nested))))
        return { ok: true, variable };
    }
    return {
      ok: false,
      result: failed(
        "wrong-type",
        `wrong item type in "${param}": expected a ${expected} of ${nested}, got ${describe(value)}`,
        param,
      ),
    };
  }
  if (answerType !== undefined && actual === answerType) return { ok: true, variable: true };
  return {
    ok: false,
    result: failed(
      "wrong-type",
      `wrong type for "${param}": expected ${expected}, got ${actual} ${describe(value)}`,
      param,
    ),
  };
}

function wrongValue(param: string, value: unknown, candidates: readonly unknown[]): CheckResult {
  return failed(
    "wrong-value",
    `wrong value for "${param}": ${describe(value)} (expected one of ${candidatesText(candidates)})`,
    param,
  );
}

function standardized(value: unknown): unknown {
  return typeof value === "string" ? standardizeString(value) : value;
}

/** BFCL's dict check: some candidate has every key the value has, with a matching value, and no required key missing. */
function dictMatches(value: unknown, candidates: readonly unknown[]): boolean {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const object = value as Record<string, unknown>;
  return candidates.some((candidate) => {
    if (candidate === "" || typeof candidate !== "object" || candidate === null || Array.isArray(candidate))
      return false;
    const expected = candidate as Record<string, unknown>;
    for (const [key, item] of Object.entries(object)) {
      if (!Object.hasOwn(expected, key)) return false;
      if (!pythonIn(standardized(item), pythonItems(expected[key]).map(standardized))) return false;
    }
    for (const [key, options] of Object.entries(expected)) {
      // Python's `"" in options`: a string always contains the empty string.
      const omittable = typeof options === "string" || pythonItems(options).includes("");
      if (!Object.hasOwn(object, key) && !omittable) return false;
    }
    return true;
  });
}

function checkValue(
  param: string,
  value: unknown,
  candidates: readonly unknown[],
  expected: PythonType | undefined,
  nested: PythonType | undefined,
): CheckResult {
  if (expected === "dict")
    return dictMatches(value, candidates) ? PASSED : wrongValue(param, value, candidates);
  if (expected === "list" && nested === "dict") {
    const items = value as unknown[];
    const ok = candidates.some((candidate) => {
      const options = pythonItems(candidate === "" ? [] : candidate);
      return options.length === items.length && items.every((item, i) => dictMatches(item, [options[i]]));
    });
    return ok ? PASSED : wrongValue(param, value, candidates);
  }
  if (expected === "str") {
    const options = candidates.filter((c): c is string => typeof c === "string").map(standardizeString);
    return options.includes(standardizeString(value as string))
      ? PASSED
      : wrongValue(param, value, candidates);
  }
  if (expected === "list") {
    const given = (value as unknown[]).map(standardized);
    const ok = candidates.some((candidate) =>
      pythonEquals(given, pythonItems(candidate === "" ? [] : candidate).map(standardized)),
    );
    return ok ? PASSED : wrongValue(param, value, candidates);
  }
  return pythonIn(value, candidates) ? PASSED : wrongValue(param, value, candidates);
}

function itemTypeOf(schema: BfclParameterSchema): string | undefined {
  return schema.items?.type;
}

/**
 * One model call against one expected call of BFCL's possible answer, by its rules in order: the function's name;
 * every required parameter present; each argument defined by the doc and expected by the answer, of the right type,
 * with an acceptable value (strings compared after standardisation); every expected parameter without the "may be
 * omitted" marker present. Java and JavaScript arguments are source text, read by the parameter's type first.
 */
export function checkCall(
  doc: BfclFunctionDoc,
  call: ModelCall,
  expectedCall: BfclExpectedCall,
  language: BfclLanguage,
): CheckResult {
  if (call.name !== doc.name)
    return failed("wrong-function", `called "${call.name}" where "${doc.name}" was expected`);
  const expected = Object.values(expectedCall)[0] ?? {};
  const properties = doc.parameters.properties ?? {};
  for (const required of doc.parameters.required ?? []) {
    if (!Object.hasOwn(call.arguments, required))
      return failed(
        "missing-parameter",
        `"${doc.name}" is missing its required parameter "${required}"`,
        required,
      );
  }
  for (const [param, raw] of Object.entries(call.arguments)) {
    const schema = properties[param];
    const candidates = expected[param];
    if (schema === undefined || candidates === undefined) {
      return failed("extra-parameter", `"${doc.name}" got the unexpected parameter "${param}"`, param);
    }
    const docType = schema.type;
    const expectedPython = expectedType(docType, language);
    let nested: PythonType | undefined;
    let value = raw;
    if (language !== "python") {
      if (typeof raw !== "string") {
        return failed(
          "wrong-type",
          `wrong type for "${param}": ${language === "java" ? "Java" : "JavaScript"} arguments are source text (a string), got ${describe(raw)}`,
          param,
        );
      }
      const itemType = NESTED_JAVA.has(docType ?? "") || docType === "array" ? itemTypeOf(schema) : undefined;
      if (itemType !== undefined) nested = expectedType(itemType, language);
      value =
        language === "java"
          ? javaSourceValue(raw, docType ?? "any", itemType)
          : javascriptSourceValue(raw, docType ?? "any", itemType);
    } else if (NESTED_PYTHON.has(docType ?? "")) {
      const itemType = itemTypeOf(schema);
      nested = itemType === undefined ? undefined : PYTHON_TYPES[itemType];
    }
    let variable = false;
    if (expectedPython !== undefined) {
      const typed = checkType(param, value, candidates, expectedPython, nested);
      if (!typed.ok) return typed.result;
      variable = typed.variable;
    }
    const result = variable
      ? pythonIn(value, candidates)
        ? PASSED
        : wrongValue(param, value, candidates)
      : checkValue(param, value, candidates, expectedPython, nested);
    if (!result.passed) return result;
  }
  for (const [param, candidates] of Object.entries(expected)) {
    if (!Object.hasOwn(call.arguments, param) && !candidates.includes("")) {
      return failed(
        "missing-parameter",
        `"${doc.name}" is missing the parameter "${param}" the answer expects`,
        param,
      );
    }
  }
  return PASSED;
}
