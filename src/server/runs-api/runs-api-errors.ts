import { ToolbridgeError } from "../../core/toolbridge-error.js";

/**
 * An error of the Runs API with the HTTP status and `type` it answers with (`{error: {message, type}}`, the shape
 * OpenAI uses, so one client handles /api, /ws and /v1). Thrown before anything is changed.
 */
export class RunsApiError extends ToolbridgeError {
  override name = "RunsApiError";
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 | 422,
    readonly type: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string) => new RunsApiError(message, 400, "invalid_request_error");
export const notFound = (message: string) => new RunsApiError(message, 404, "not_found_error");
export const conflict = (message: string) => new RunsApiError(message, 409, "conflict_error");
export const unprocessable = (message: string) => new RunsApiError(message, 422, "invalid_arguments_error");
