import {
  DecisionError,
  type DecisionErrorReason,
  RunNotFoundError,
  RunStateError,
} from "../agent/agent-errors.js";
import { ToolbridgeError } from "../core/toolbridge-error.js";
import { ModelRequestError, UnsupportedSettingError } from "../models/model-errors.js";
import { InvalidCursorError, ToolNotFoundError } from "../tools/errors.js";
import { HttpError } from "./http-error.js";
import { ModelBusyError, ModelNotFoundError } from "./model-catalog.js";

/** The request field an UnsupportedSettingError's ModelRequest setting came from. */
const SETTING_PARAMS: Record<string, string> = { responseFormat: "response_format" };

/** `ModelLoadError` → `model_load_error`: a ToolbridgeError's name as the snake_case code every other error has. */
function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

/**
 * The answer to each reason a decision is refused — the one table, for /api and /ws alike: a call the request names
 * wrongly is the request's fault (400); a call or run whose state forbids the decision is a conflict with what
 * happened before (409, the message names who decided it); edited arguments are checked like the model's (422, with
 * the model-friendly message). The code is the reason in snake_case.
 */
export const DECISION_ERROR_STATUS: Record<DecisionErrorReason, 400 | 409 | 422> = {
  "unknown-call": 400,
  "duplicate-call": 400,
  "already-decided": 409,
  "not-pending": 409,
  "run-over": 409,
  "tool-unavailable": 422,
  "invalid-arguments": 422,
};

/**
 * Anything thrown while answering, as the HTTP error it stands for — the one decision of status, type, param and code
 * for every surface (/api, /ws, /v1). Ours keep theirs; the errors of the rooms below get theirs here; any other
 * toolbridge error is a 500 with its message (written to be acted on: a model that cannot be loaded or reached);
 * anything else is a bug: a 500 that names no internals, its stack on the server's stderr.
 */
export function toHttpError(error: unknown): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof RunNotFoundError)
    // The agent's message advises the CLI; an API client lists runs over HTTP.
    return new HttpError(404, `No run "${error.runId}" on this server; GET /api/runs lists the runs.`, {
      code: "run_not_found",
    });
  // The agent's words, as is (edited arguments get the model-friendly message).
  if (error instanceof DecisionError)
    return new HttpError(DECISION_ERROR_STATUS[error.reason], error.message, {
      code: error.reason.replaceAll("-", "_"),
    });
  // Cancel a run that is over or driven by another live process, resume one still waiting: the run's state forbids it.
  if (error instanceof RunStateError) return new HttpError(409, error.message, { code: "run_state" });
  if (error instanceof ToolNotFoundError)
    return new HttpError(404, error.message, { code: "tool_not_found" });
  if (error instanceof InvalidCursorError)
    return new HttpError(400, error.message, { param: "cursor", code: "invalid_cursor" });
  if (error instanceof ModelNotFoundError)
    // OpenAI answers an unknown model 404 with this type, param and code; its clients read them.
    return new HttpError(404, error.message, {
      type: "invalid_request_error",
      param: "model",
      code: "model_not_found",
    });
  if (error instanceof ModelBusyError)
    // Retry-After: clients back off instead of hammering a full queue.
    return new HttpError(503, error.message, { code: "model_busy", headers: { "retry-after": "1" } });
  if (error instanceof UnsupportedSettingError)
    return new HttpError(400, error.message, {
      param: SETTING_PARAMS[error.setting] ?? error.setting,
      code: "unsupported_parameter",
    });
  // The backend's own server refused the request as given (a setting it does not take, a schema it cannot use).
  if (error instanceof ModelRequestError && error.status === 400)
    return new HttpError(400, error.message, { code: "backend_rejected" });
  if (error instanceof ToolbridgeError)
    return new HttpError(500, error.message, { code: snakeCase(error.name) });
  process.stderr.write(`toolbridge: server: ${(error as Error)?.stack ?? String(error)}\n`);
  return new HttpError(500, "Internal error; see the server's log.", { code: "internal_error" });
}
