import { defineTool } from "../define-tool.js";
import { errorResult } from "../normalize-tool-result.js";
import type { ToolDefinition } from "../tool-definition.js";
import { MAX_EXPRESSION_LENGTH } from "./calculator-limits.js";
import { MathWorker, type MathWorkerOptions } from "./math-worker.js";

export interface CalculatorToolOptions extends MathWorkerOptions {
  /** Share one worker between several calculator tools (or inspect it in tests). Default: a worker of its own. */
  worker?: MathWorker;
}

export interface CalculatorArgs {
  expression: string;
}

const DESCRIPTION = [
  "Evaluate a math expression exactly and return the result. Use it for any arithmetic instead of computing in your head.",
  "Supports + - * / ^ (or **), parentheses, percentages (`15% of 47.50`), functions (sqrt, abs, round, floor, ceil,",
  "sin, cos, tan, log, log10, exp, factorial, min, max, mean, median, gcd, lcm), constants (pi, e, i), complex numbers,",
  "matrices ([1, 2; 3, 4], det, inv) and unit conversion (`5 cm to inch`).",
  "Examples: `sqrt(16)` → 4, `47.5 * 0.15` → 7.125, `2**10` → 1024, `1/3` → 0.33333333333333.",
  "No variables or function definitions. Division by zero is reported as an error.",
].join(" ");

/**
 * The `calculator` tool: mathjs in a locked-down instance, evaluated in a worker thread with a hard time bound and a
 * heap limit, so neither hostile nor merely huge expressions can run code or stall the process.
 */
export function createCalculatorTool(options: CalculatorToolOptions = {}): ToolDefinition<CalculatorArgs> {
  const worker = options.worker ?? new MathWorker(options);
  return defineTool<CalculatorArgs>({
    name: "calculator",
    title: "Calculator",
    description: DESCRIPTION,
    inputSchema: {
      type: "object",
      properties: {
        expression: {
          type: "string",
          minLength: 1,
          maxLength: MAX_EXPRESSION_LENGTH,
          description:
            'The math expression to evaluate, e.g. "sqrt(16)", "47.5 * 0.15", "2**10", "15% of 47.50".',
        },
      },
      required: ["expression"],
      additionalProperties: false,
    },
    annotations: { title: "Calculator", readOnlyHint: true, openWorldHint: false, idempotentHint: true },
    category: "math",
    // Covers a cold worker start (loading mathjs takes a second, more on a busy machine) plus the evaluation bound.
    timeoutMs: worker.timeoutMs + 20_000,
    handler: async ({ expression }, { signal }) => {
      const evaluation = await worker.evaluate(expression, signal);
      return evaluation.ok ? evaluation.text : errorResult(evaluation.message);
    },
  });
}
