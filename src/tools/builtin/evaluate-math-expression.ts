import { all, create, type MathNode } from "mathjs";
import { MAX_EXPRESSION_LENGTH } from "./calculator-limits.js";

/**
 * The calculator's expression engine: a locked-down mathjs instance (mathjs's documented security recipe,
 * https://mathjs.org/docs/expressions/security.html) plus input normalisation and result formatting.
 *
 * It is synchronous and unbounded in time and memory on purpose: the calculator tool runs it inside a worker thread
 * that it can terminate, which is the only reliable bound on a synchronous loop inside mathjs.
 */

/** Matrices larger than this are refused as results: printing them would flood the model's context. */
const MAX_RESULT_ELEMENTS = 10_000;
const MAX_RESULT_CHARS = 10_000;

export type MathEvaluation = { ok: true; text: string; type: string } | { ok: false; message: string };

const math = create(all!, {});
// mathjs builds most functions lazily, on first use, and hands each factory its dependencies by name from the
// instance. `config` is one of those dependencies (bignumber functions read `config.precision`), so a factory first
// built after `config` is disabled below would receive the disabled function: `factorial(bignumber(20))` failed with
// "[DecimalError] Invalid argument: precision: NaN". Building every function now, while `config` is still the real
// object, gives each one the real configuration; the lockdown then only changes what an expression can call.
for (const name of Object.keys(math)) void (math as unknown as Record<string, unknown>)[name];
// References kept before the public functions are disabled: the instance's own parser keeps working for us, while
// an expression can no longer reach either of them.
const limitedEvaluate = math.evaluate;
const limitedParse = math.parse;
const format = math.format;

const DISABLED_FUNCTIONS = [
  // The recipe's list: these change the instance or parse arbitrary input into manipulable trees.
  "import",
  "createUnit",
  "evaluate",
  "parse",
  "simplify",
  "derivative",
  "resolve",
  "reviver",
  // Same family: they compile or rewrite expressions, or hand out a parser with its own mutable scope.
  "compile",
  "simplifyConstant",
  "simplifyCore",
  "rationalize",
  "symbolicEqual",
  "leafCount",
  "replacer",
  "parser",
  "chain",
  // `config({number: "BigNumber"})` would change every later calculation of this long-lived instance.
  "config",
  // help() evaluates its examples through `evaluate`.
  "help",
] as const;

function disabled(name: string): () => never {
  return () => {
    throw new Error(`Function ${name} is disabled`);
  };
}

math.import(Object.fromEntries(DISABLED_FUNCTIONS.map((name) => [name, disabled(name)])), { override: true });

class CalculatorInputError extends Error {
  override name = "CalculatorInputError";
}

/**
 * Rewrite what models and people commonly type into mathjs syntax, outside string literals only:
 * `**` → `^` (both right-associative, so `2 ** 3 ** 2` = 512 and `2**-1` = 0.5 keep their meaning),
 * `×`/`÷`/`−` → `*`/`/`/`-`, and "15% of 47.50" → "15% * 47.50".
 */
export function normalizeExpression(expression: string): string {
  let out = "";
  let code = "";
  let quote: string | undefined;
  const flushCode = () => {
    out += code
      .replace(/\*\*/g, "^")
      .replace(/×/g, "*")
      .replace(/÷/g, "/")
      .replace(/−/g, "-")
      .replace(/%\s*of\b/gi, "% *");
    code = "";
  };
  for (let i = 0; i < expression.length; i++) {
    const ch = expression[i] as string;
    if (quote) {
      out += ch;
      if (ch === "\\" && i + 1 < expression.length) out += expression[++i];
      else if (ch === quote) quote = undefined;
    } else if (ch === '"' || ch === "'") {
      flushCode();
      quote = ch;
      out += ch;
    } else {
      code += ch;
    }
  }
  flushCode();
  return out;
}

/** Keys that would reach or replace an object's prototype machinery. */
function isUnsafeKey(key: string): boolean {
  return key.startsWith("__") || key === "constructor" || key === "prototype";
}

function checkTree(node: MathNode): void {
  node.traverse((child) => {
    // `typed` builds new functions out of existing ones; it cannot be overridden like the others (the instance's own
    // functions are built with it), so it is refused by name.
    if (child.type === "SymbolNode" && (child as unknown as { name: string }).name === "typed") {
      throw new CalculatorInputError(
        "The function `typed` is disabled in this calculator for safety. Write a plain calculation.",
      );
    }
    if (child.type === "ObjectNode") {
      const properties = (child as unknown as { properties: Record<string, unknown> }).properties;
      // The parser collects keys into a plain object, so a `"__proto__"` key replaces its prototype instead of
      // showing up as a key.
      const prototype = Object.getPrototypeOf(properties) as unknown;
      const unsafe =
        prototype !== Object.prototype && prototype !== null
          ? "__proto__"
          : Object.keys(properties).find(isUnsafeKey);
      if (unsafe !== undefined) {
        throw new CalculatorInputError(
          `The object key \`${unsafe}\` is not allowed. Write a plain calculation.`,
        );
      }
    }
    if (child.type === "FunctionNode" && (child as unknown as { fn: MathNode }).fn.type === "AccessorNode") {
      throw new CalculatorInputError(
        "Method calls (like `x.toString()`) are not supported. Call functions directly, e.g. `round(2.567, 2)`.",
      );
    }
    if (child.type === "FunctionAssignmentNode") {
      throw new CalculatorInputError(
        "Defining functions (like `f(x) = x^2`) is not supported. Write the calculation directly, e.g. `3^2`.",
      );
    }
    if (child.type === "AssignmentNode") {
      throw new CalculatorInputError(
        "Assigning variables (like `a = 1`) is not supported. Put the numbers into one expression, e.g. `(1 + 2) * 3`.",
      );
    }
  });
}

function countElements(value: { size(): number[] }): number {
  return value.size().reduce((product, n) => product * n, 1);
}

const FORMAT_OPTIONS = { precision: 14, lowerExp: -9, upperExp: 15 } as const;

function formatNumber(value: number): string {
  if (Number.isNaN(value)) {
    throw new CalculatorInputError(
      "The result is not a number (NaN), e.g. from 0/0 or Infinity - Infinity. Check the expression.",
    );
  }
  if (!Number.isFinite(value)) {
    throw new CalculatorInputError(
      `The result is ${value < 0 ? "negative " : ""}infinite: a division by zero, or a value beyond ±1.8e308. ` +
        "Check the expression; for very large exact values use bignumber(), e.g. bignumber(2)^2000.",
    );
  }
  // Exact integers print in full (9007199254740992, not 9.007199254741e+15); everything else is rounded to 14
  // significant digits, which also removes binary noise (0.1 + 0.2 → 0.3).
  if (Number.isInteger(value) && Math.abs(value) <= 2 ** 53) return String(value === 0 ? 0 : value);
  return format(value, FORMAT_OPTIONS);
}

function describeType(value: unknown): string {
  if (value === null) return "null";
  if (typeof value !== "object") return typeof value;
  return math.typeOf(value);
}

function formatResult(value: unknown): string {
  if (value === undefined || value === null) {
    throw new CalculatorInputError(
      "The expression produced no value. Write a calculation such as `2 * (3 + 4)`.",
    );
  }
  if (typeof value === "function") {
    const name = (value as { name?: string }).name || "that";
    throw new CalculatorInputError(
      `\`${name}\` is a function; call it with arguments, e.g. \`${name === "that" ? "sqrt" : name}(2)\`.`,
    );
  }
  if (typeof value === "number") return formatNumber(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "string" && /^(async\s+)?function\b[\s\S]*\{/.test(value)) {
    throw new CalculatorInputError(
      "Functions cannot be converted to text. Call the function instead, e.g. `sin(1)`.",
    );
  }
  if (typeof value === "string" || typeof value === "boolean") return String(value);
  if (math.isResultSet(value)) {
    const entries = (value as unknown as { entries: unknown[] }).entries;
    return entries.map(formatResult).join("\n");
  }
  if (math.isMatrix(value) || Array.isArray(value)) {
    const matrix = math.isMatrix(value) ? value : math.matrix(value as number[]);
    const elements = countElements(matrix);
    if (elements > MAX_RESULT_ELEMENTS) {
      throw new CalculatorInputError(
        `The result has ${elements} elements; at most ${MAX_RESULT_ELEMENTS} can be shown. Reduce it, e.g. with sum(...) or size(...).`,
      );
    }
    let nonFinite = false;
    matrix.forEach((item: unknown) => {
      if (typeof item === "number" && Number.isNaN(item)) nonFinite = true;
    });
    if (nonFinite)
      throw new CalculatorInputError("The result contains NaN (not a number). Check the expression.");
  }
  if (math.isComplex(value)) {
    const { re, im } = value as { re: number; im: number };
    if (!Number.isFinite(re) || !Number.isFinite(im)) {
      throw new CalculatorInputError("The result is infinite or not a number. Check the expression.");
    }
  }
  if (math.isBigNumber(value) && !value.isFinite()) {
    throw new CalculatorInputError(
      value.isNaN() ? "The result is not a number (NaN). Check the expression." : "The result is infinite.",
    );
  }
  return format(value, FORMAT_OPTIONS);
}

/** Turn mathjs's messages into ones that say what to do. */
function explainError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof CalculatorInputError) return message;
  let match = /^Undefined function (.+)$/.exec(message);
  if (match) {
    return `Unknown function \`${match[1]}\`. Use a mathjs function such as sqrt, abs, round, floor, ceil, sin, cos, tan, log, log10, exp, factorial, min, max, mean, gcd, lcm.`;
  }
  match = /^Undefined symbol (.+)$/.exec(message);
  if (match) {
    return `Unknown name \`${match[1]}\`. The calculator has no variables: use numbers, the constants pi, e, i, phi, and functions such as sqrt(16).`;
  }
  match = /^Function (\w+) is disabled$/.exec(message);
  if (match)
    return `The function \`${match[1]}\` is disabled in this calculator for safety. Write a plain calculation.`;
  if (/char \d+/.test(message) || /^(Unexpected|Value expected|Parenthesis|Syntax)/.test(message)) {
    return `Syntax error: ${message}. Check the expression, e.g. \`2 * (3 + 4)\` or \`sqrt(16)\`.`;
  }
  if (error instanceof RangeError && /call stack/i.test(message)) {
    return "The expression is nested too deeply. Simplify it.";
  }
  if (error instanceof RangeError)
    return `The calculation is too large: ${message}. Use smaller numbers or sizes.`;
  return `${message}. Check the expression.`;
}

/** Evaluate one expression in the locked-down instance. Never throws. */
export function evaluateMathExpression(expression: string): MathEvaluation {
  try {
    if (expression.length > MAX_EXPRESSION_LENGTH) {
      throw new CalculatorInputError(
        `The expression is ${expression.length} characters long; at most ${MAX_EXPRESSION_LENGTH} are accepted.`,
      );
    }
    const normalized = normalizeExpression(expression);
    if (normalized.trim() === "") {
      throw new CalculatorInputError("The expression is empty. Write a calculation such as `2 * (3 + 4)`.");
    }
    checkTree(limitedParse(normalized));
    const value: unknown = limitedEvaluate(normalized);
    const text = formatResult(value);
    if (text.length > MAX_RESULT_CHARS) {
      throw new CalculatorInputError(
        `The result is ${text.length} characters long; at most ${MAX_RESULT_CHARS} can be shown. Reduce it.`,
      );
    }
    return { ok: true, text, type: describeType(value) };
  } catch (error) {
    return { ok: false, message: explainError(error) };
  }
}
