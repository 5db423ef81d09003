import { toOpenAIApiError } from "../openai/openai-api-error.js";

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

/** `{"type": "error", "error": {"type", "message"}}`: the body of every error the Messages API answers. */
export function anthropicErrorBody(status: number, message: string) {
  return { type: "error", error: { type: ANTHROPIC_ERROR_TYPES[status] ?? "api_error", message } };
}

/**
 * Anything thrown while answering /v1/messages, in Anthropic's shape, so its SDKs raise their usual typed errors. The
 * decision (which status, which message) is the one /v1 makes for every API (toOpenAIApiError); only the writing
 * differs: a full model queue is Anthropic's 529 `overloaded_error`, with Retry-After.
 */
export function anthropicErrorResponse(error: unknown): Response {
  const failure = toOpenAIApiError(error);
  const status = failure.status === 503 ? 529 : failure.status;
  return new Response(JSON.stringify(anthropicErrorBody(status, failure.message)), {
    status,
    headers: { "content-type": "application/json", ...(status === 529 ? { "retry-after": "1" } : {}) },
  });
}

/** The in-band error event that ends a stream whose turn failed after the 200 headers. */
export function anthropicErrorEvent(error: unknown): string {
  const failure = toOpenAIApiError(error);
  const status = failure.status === 503 ? 529 : failure.status;
  return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(status, failure.message))}\n\n`;
}
