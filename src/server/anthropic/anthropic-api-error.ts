import type { HttpError } from "../http-error.js";

/** Anthropic's error types by HTTP status (its API reference, "Errors"). */
const ANTHROPIC_ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

/** A full model queue is Anthropic's 529 `overloaded_error` (its SDKs retry it), where OpenAI's is a 503. */
function anthropicStatus(error: HttpError): number {
  return error.status === 503 ? 529 : error.status;
}

/** `{"type": "error", "error": {"type", "message"}}`: the body of every error the Messages API answers. */
export function anthropicErrorBody(error: HttpError) {
  const status = anthropicStatus(error);
  return {
    type: "error",
    error: { type: ANTHROPIC_ERROR_TYPES[status] ?? "api_error", message: error.message },
  };
}

/**
 * An error of /v1/messages in Anthropic's shape, so its SDKs raise their usual typed errors. The decision (which
 * status, which message) is the one every surface makes (toHttpError); only the writing differs.
 */
export function anthropicErrorResponse(error: HttpError): Response {
  const status = anthropicStatus(error);
  return new Response(JSON.stringify(anthropicErrorBody(error)), {
    status,
    headers: {
      "content-type": "application/json",
      ...error.headers,
      ...(status === 529 ? { "retry-after": "1" } : {}),
    },
  });
}

/** The in-band error event that ends a stream whose turn failed after the 200 headers. */
export function anthropicErrorEvent(error: HttpError): string {
  return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(error))}\n\n`;
}
