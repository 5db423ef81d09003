/**
 * Why an entry failed, one class each, in the order a reader fixes them: the model said nothing callable, wrote
 * something unreadable, called when it should not have, made the wrong number of calls, picked the wrong function,
 * left out or added a parameter, or gave a value of the wrong type or the wrong value. `model-error`: the backend
 * failed on the entry (the prompt did not fit the context, the server refused it).
 */
export const FAILURE_CLASSES = [
  "no-call",
  "unparseable",
  "unexpected-call",
  "wrong-count",
  "wrong-function",
  "missing-parameter",
  "extra-parameter",
  "wrong-type",
  "wrong-value",
  "model-error",
] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];

export interface CheckFailure {
  class: FailureClass;
  /** What was wrong, naming the function and parameter, e.g. `wrong value for "unit": "cm" (expected one of …)`. */
  message: string;
  /** The parameter at fault, when one is. */
  param?: string;
}

export type CheckResult = { passed: true } | { passed: false; failure: CheckFailure };

export const PASSED: CheckResult = Object.freeze({ passed: true });

export function failed(failureClass: FailureClass, message: string, param?: string): CheckResult {
  return {
    passed: false,
    failure: { class: failureClass, message, ...(param !== undefined ? { param } : {}) },
  };
}
