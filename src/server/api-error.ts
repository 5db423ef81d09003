import { anthropicErrorBody } from "./anthropic/anthropic-api-error.js";

/**
 * Errors of the HTTP app, in the shape each surface's clients read: `{"error": {"message", "type", "code"}}` on /api,
 * /ws and /v1 (OpenAI's shape, so one client handles both; `param` is null as OpenAI sends it), and a JSON-RPC error on
 * /mcp, where MCP clients expect one.
 */
export function apiError(
  status: number,
  message: string,
  type: string,
  code: string | null = null,
  headers: Record<string, string> = {},
): Response {
  return new Response(JSON.stringify({ error: { message, type, param: null, code } }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

/** JSON-RPC error codes the guards used on /mcp before /api existed (kept: MCP clients may match on them). */
const JSON_RPC_CODES: Record<number, number> = { 401: -32001, 429: -32029 };

/** OpenAI's error types for the guards' statuses: an OpenAI client (and ours) reports them by type. */
const GUARD_ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  413: "invalid_request_error",
  429: "rate_limit_error",
};

/**
 * A guard's refusal (403 Host/Origin, 401 token, 429 too many wrong tokens, 413 body, 400 token in URL) in the shape of the route it stops: the
 * type is OpenAI's for the status, `code` says which guard (`forbidden`, `unauthorized`, `payload_too_large`, …).
 */
export function guardError(
  path: string,
  status: number,
  message: string,
  code: string,
  headers: Record<string, string> = {},
): Response {
  // Anthropic's clients read Anthropic's shape: `{"type": "error", "error": {"type", "message"}}`.
  if (path === "/v1/messages" || path.startsWith("/v1/messages/"))
    return new Response(JSON.stringify(anthropicErrorBody(status, message)), {
      status,
      headers: { "content-type": "application/json", ...headers },
    });
  if (path === "/mcp" || path.startsWith("/mcp/")) {
    return new Response(
      JSON.stringify({
        jsonrpc: "2.0",
        error: { code: JSON_RPC_CODES[status] ?? -32000, message },
        id: null,
      }),
      { status, headers: { "content-type": "application/json", ...headers } },
    );
  }
  return apiError(status, message, GUARD_ERROR_TYPES[status] ?? "invalid_request_error", code, headers);
}
