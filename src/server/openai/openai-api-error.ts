import { ToolbridgeError } from "../../core/toolbridge-error.js";
import { ModelRequestError, UnsupportedSettingError } from "../../models/model-errors.js";
import { ModelBusyError, ModelNotFoundError } from "../model-catalog.js";

/** The request field an UnsupportedSettingError's ModelRequest setting came from. */
const SETTING_PARAMS: Record<string, string> = { responseFormat: "response_format" };

export type OpenAIErrorType =
  | "invalid_request_error"
  | "authentication_error"
  | "permission_error"
  | "not_found_error"
  | "rate_limit_error"
  | "server_error";

/**
 * An error `/v1` answers in OpenAI's exact shape, `{"error": {"message", "type", "param", "code"}}`, so the official
 * clients raise their usual typed errors (BadRequestError, NotFoundError…) with our message in them.
 */
export class OpenAIApiError extends ToolbridgeError {
  override name = "OpenAIApiError";
  constructor(
    readonly status: number,
    message: string,
    readonly type: OpenAIErrorType,
    readonly param: string | null = null,
    readonly code: string | null = null,
  ) {
    super(message);
  }

  body(): { error: { message: string; type: string; param: string | null; code: string | null } } {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** A 400 `invalid_request_error` naming the offending field (`param`, e.g. `messages[2].tool_call_id`). */
export function invalidRequest(message: string, param: string | null = null, code: string | null = null) {
  return new OpenAIApiError(400, message, "invalid_request_error", param, code);
}

/** Anything thrown while answering, as the OpenAI error it is: ours keep their status, the rest are 500s. */
export function toOpenAIApiError(error: unknown): OpenAIApiError {
  if (error instanceof OpenAIApiError) return error;
  if (error instanceof ModelNotFoundError)
    return new OpenAIApiError(404, error.message, "invalid_request_error", "model", "model_not_found");
  if (error instanceof ModelBusyError)
    return new OpenAIApiError(503, error.message, "server_error", null, "model_busy");
  if (error instanceof UnsupportedSettingError)
    return new OpenAIApiError(
      400,
      error.message,
      "invalid_request_error",
      SETTING_PARAMS[error.setting] ?? error.setting,
      "unsupported_parameter",
    );
  // The backend's own server refused the request as given (a setting it does not take, a schema it cannot use).
  if (error instanceof ModelRequestError && error.status === 400)
    return new OpenAIApiError(400, error.message, "invalid_request_error", null, "backend_rejected");
  const message = error instanceof Error ? error.message : String(error);
  const known = error instanceof ToolbridgeError;
  return new OpenAIApiError(
    500,
    known ? message : `The model failed while answering: ${message}`,
    "server_error",
    null,
    known ? error.name : null,
  );
}

/** The HTTP response for an error, with Retry-After on 503 so clients back off instead of hammering a full queue. */
export function openAIErrorResponse(error: OpenAIApiError): Response {
  return new Response(JSON.stringify(error.body()), {
    status: error.status,
    headers: {
      "content-type": "application/json",
      ...(error.status === 503 ? { "retry-after": "1" } : {}),
    },
  });
}
