import { ToolbridgeError } from "../core/toolbridge-error.js";

/** A model spec or backend option that cannot work (missing model name, unknown backend, bad template). */
export class ModelConfigError extends ToolbridgeError {
  override name = "ModelConfigError";
}

/** The model server answered with an error or could not be reached; the message says what to check. */
export class ModelRequestError extends ToolbridgeError {
  override name = "ModelRequestError";
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * A text-completion server removed the model's tool-call markup from the completion (mlx_lm.server does this on
 * `/v1/completions` for models whose tokenizer declares tool-call tokens, and reports finish_reason "tool_calls").
 */
export class MarkupStrippedError extends ToolbridgeError {
  override name = "MarkupStrippedError";
}

/**
 * The request asks for something this backend cannot do (a JSON `responseFormat` on a backend with no way to
 * constrain its output). Thrown before anything is generated, so a server can refuse the request (HTTP 400).
 * `setting` names the ModelRequest field, e.g. `responseFormat`.
 */
export class UnsupportedSettingError extends ToolbridgeError {
  override name = "UnsupportedSettingError";
  constructor(
    message: string,
    readonly setting: string,
  ) {
    super(message);
  }
}
