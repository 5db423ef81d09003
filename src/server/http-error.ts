import { ToolbridgeError } from "../core/toolbridge-error.js";

/**
 * OpenAI's error body, `{"error": {"message", "type", "param", "code"}}`: what every surface of the server answers an
 * error with (/api, /ws, /v1; /v1/messages writes the same error in Anthropic's shape), so one client handles them all
 * and OpenAI's clients raise their usual typed errors with our message in them.
 */
export interface ErrorBody {
  error: {
    message: string;
    /** OpenAI's error type for the status (`invalid_request_error`, `not_found_error`, …). */
    type: string;
    /** The request field at fault (`messages[2].tool_call_id`, `limit`), or null. */
    param: string | null;
    /** Which error, in snake_case (`run_not_found`, `approval_required`, `payload_too_large`, …): what a client branches on. */
    code: string;
  };
}

/** OpenAI's error types by status (its clients map the status; the type says the same in words). */
const TYPE_BY_STATUS: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  409: "conflict_error",
  413: "invalid_request_error",
  422: "invalid_request_error",
  429: "rate_limit_error",
};

/** The code of an error that names none more precise. */
const CODE_BY_STATUS: Record<number, string> = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  422: "unprocessable",
  429: "rate_limited",
  503: "unavailable",
};

export interface HttpErrorOptions {
  /** Default: OpenAI's type for the status. */
  type?: string | undefined;
  param?: string | null | undefined;
  /** Default: the status's generic code (`invalid_request`, `not_found`, `conflict`, …). */
  code?: string | undefined;
  /** Headers of the response (`retry-after`, `www-authenticate`, `connection`). */
  headers?: Record<string, string> | undefined;
}

/**
 * An error the server answers with a status: thrown by routes, guards and the WebSocket API before anything is
 * changed, and written by one place (error-response.ts) in the shape of the surface it happened on.
 */
export class HttpError extends ToolbridgeError {
  override name = "HttpError";
  readonly type: string;
  readonly param: string | null;
  readonly code: string;
  readonly headers: Record<string, string>;

  constructor(
    readonly status: number,
    message: string,
    options: HttpErrorOptions = {},
  ) {
    super(message);
    this.type = options.type ?? TYPE_BY_STATUS[status] ?? "server_error";
    this.param = options.param ?? null;
    this.code = options.code ?? CODE_BY_STATUS[status] ?? "internal_error";
    this.headers = options.headers ?? {};
  }

  body(): ErrorBody {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } };
  }
}

/** 400: the request as sent cannot be taken (`param` names the field at fault). */
export function badRequest(message: string, param: string | null = null, code?: string): HttpError {
  return new HttpError(400, message, { param, code });
}

/** 404: the id (run, conversation, tool, model, route) names nothing here. */
export function notFound(message: string, code?: string): HttpError {
  return new HttpError(404, message, { code });
}

/** 409: the request is right but the state of what it names refuses it (decided already, still live). */
export function conflict(message: string, code?: string): HttpError {
  return new HttpError(409, message, { code });
}

/** 422: edited arguments or settings the schema rejects (the message says what the schema wants). */
export function unprocessable(message: string, code?: string): HttpError {
  return new HttpError(422, message, { code });
}
