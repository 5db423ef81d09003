import { evaluateMathExpression } from "./evaluate-math-expression.js";

/**
 * Entry of the calculator's worker process (started by MathWorker with `fork`): one request in, one evaluation out,
 * in order. It exits with its parent.
 */
export interface CalculatorRequest {
  id: number;
  expression: string;
}

if (process.send) {
  const send = process.send.bind(process);
  process.on("message", (request: CalculatorRequest) => {
    send({ id: request.id, ...evaluateMathExpression(request.expression) });
  });
  process.on("disconnect", () => process.exit(0));
  // Loading mathjs takes about a second; the parent starts its time bound only after this.
  send({ ready: true });
}
