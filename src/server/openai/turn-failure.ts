import { ToolbridgeError } from "../../core/toolbridge-error.js";
import { HttpError } from "../http-error.js";
import { toHttpError } from "../to-http-error.js";

/**
 * What a /v1 turn that failed answers, before the headers (thrown to the app's error handler) or in-band after them
 * (each API's error event). A backend's own error (node-llama-cpp, a provider SDK) is the model failing: its message
 * is passed on, as the client needs it to tell a broken model from a broken request.
 */
export function turnFailure(error: unknown): HttpError {
  if (error instanceof ToolbridgeError) return toHttpError(error);
  const message = error instanceof Error ? error.message : String(error);
  return new HttpError(500, `The model failed while answering: ${message}`, { code: "model_failed" });
}
