import type { Context } from "hono";
import { anthropicErrorResponse } from "./anthropic/anthropic-api-error.js";
import type { ErrorBody, HttpError } from "./http-error.js";
import { toHttpError } from "./to-http-error.js";

/** JSON-RPC error codes the guards used on /mcp before /api existed (kept: MCP clients may match on them). */
const JSON_RPC_CODES: Record<number, number> = { 401: -32001, 429: -32029 };

function isUnder(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** An error in OpenAI's shape with its status and headers: /api, /v1 (but for /v1/messages) and the web UI's paths. */
export function openAIErrorResponse(error: HttpError): Response {
  return new Response(JSON.stringify(error.body()), {
    status: error.status,
    headers: { "content-type": "application/json", ...error.headers },
  });
}

/**
 * Anything thrown while answering `path`, written in the shape the clients of that surface read: Anthropic's on
 * /v1/messages, a JSON-RPC error on /mcp (where only the guards answer for the MCP handler), OpenAI's everywhere else.
 * The decision — status, type, param, code, message — is toHttpError's, the same on every surface.
 */
export function errorResponse(path: string, thrown: unknown): Response {
  const error = toHttpError(thrown);
  if (isUnder(path, "/v1/messages")) return anthropicErrorResponse(error);
  if (isUnder(path, "/mcp")) {
    return new Response(
      JSON.stringify({
        jsonrpc: "2.0",
        error: { code: JSON_RPC_CODES[error.status] ?? -32000, message: error.message },
        id: null,
      }),
      { status: error.status, headers: { "content-type": "application/json", ...error.headers } },
    );
  }
  return openAIErrorResponse(error);
}

/** The app's one error handler: every route and guard throws an HttpError (or an error it stands for) to here. */
export function onHttpError(error: unknown, c: Context): Response {
  return errorResponse(c.req.path, error);
}

/**
 * An error reply on the WebSocket API: `{"type": "error", "id"?, "status", "error": {message, type, param, code}}` —
 * the body HTTP would answer, and its status beside it (a socket message has none of its own).
 */
export function wsErrorMessage(
  id: string | number | undefined,
  thrown: unknown,
): { type: "error"; id?: string | number; status: number } & ErrorBody {
  const error = toHttpError(thrown);
  return { type: "error", ...(id === undefined ? {} : { id }), status: error.status, ...error.body() };
}
