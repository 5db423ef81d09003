import { ToolbridgeError } from "../core/toolbridge-error.js";

/** A request to `eval` that cannot be carried out as given (an unknown category, a report that does not match). */
export class EvalInputError extends ToolbridgeError {
  override name = "EvalInputError";
}
