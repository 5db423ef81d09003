import { defineTool } from "../define-tool.js";
import { errorResult } from "../normalize-tool-result.js";
import type { ToolDefinition } from "../tool-definition.js";
import { MAX_EXPRESSION_LENGTH } from "./calculator-limits.js";
import type { MathWorker } from "./math-worker.js";
import { MathWorkerPool, type MathWorkerPoolOptions } from "./math-worker-pool.js";

export interface CalculatorToolOptions extends MathWorkerPoolOptions {
  /** Share one pool between several calculator tools (or inspect it in tests). Default: a pool of its own. */
  pool?: MathWorkerPool;
  /** Evaluate on this one worker (a pool of one; tests that inspect the worker). */
  worker?: MathWorker;
}

export interface CalculatorArgs {
  expression: string;
}

const DESCRIPTION = [
  "Evaluate a math expression exactly and return the result. Use it for any arithmetic instead of computing in your head.",
  "Supports + - * / ^ (or **), parentheses, percentages (`15% of 47.50`), functions (sqrt, cbrt, abs, round, floor, ceil,",
  "sin, cos, tan, log, log10, exp, factorial, min, max, mean, median, gcd, lcm), constants (pi, e, i), complex numbers,",
  "matrices ([1, 2; 3, 4], det, inv) and unit conversion (`5 cm to inch`).",
  "Examples: `sqrt(16)` → 4, `47.5 * 0.15` → 7.125, `2**10` → 1024, `1/3` → 0.33333333333333.",
  "No variables or function definitions. Division by zero is reported as an error.",
].join(" ");

/**
 * The `calculator` tool: mathjs in a locked-down instance, evaluated in a pool of worker processes with a hard time
 * bound and a heap limit each, so neither hostile nor merely huge expressions can run code or stall the process, and
 * shared fairly so that one caller's flood cannot starve the others.
 */
export function createCalculatorTool(options: CalculatorToolOptions = {}): ToolDefinition<CalculatorArgs> {
  const pool =
    options.pool ?? new MathWorkerPool(options.worker ? { ...options, workers: [options.worker] } : options);
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
    // Covers the longest wait for a worker, a cold worker start (loading mathjs takes a second, more on a busy
    // machine) and the evaluation bound: the pool's own limits answer first.
    timeoutMs: pool.maxQueueWaitMs + pool.timeoutMs + 20_000,
    // The pool's queue limit bounds the whole wait: the executor's queue and then the pool's share one budget.
    maxQueueWaitMs: pool.maxQueueWaitMs,
    // Fair sharing is keyed on the caller (see MathWorkerPool): the user or MCP client the call runs for.
    handler: async ({ expression }, { signal, userId, waitedMs }) => {
      const evaluation = await pool.evaluate(expression, {
        signal,
        ...(userId ? { caller: userId } : {}),
        maxWaitMs: pool.maxQueueWaitMs - (waitedMs ?? 0),
      });
      if (evaluation.ok) return evaluation.text;
      // Time spent waiting is reported apart from the evaluation's own bound.
      const waited =
        !evaluation.busy && evaluation.queuedMs >= 1000
          ? ` (It waited ${(evaluation.queuedMs / 1000).toFixed(1)} s for a free worker before it started.)`
          : "";
      return errorResult(evaluation.message + waited);
    },
  });
}
