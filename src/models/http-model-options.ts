import { ModelConfigError } from "./model-errors.js";

/** Options every HTTP backend (OpenAI chat, completions, Anthropic) takes, with one meaning in all of them. */
export interface HttpModelOptions {
  /** Extra HTTP headers on every request. */
  headers?: Record<string, string>;
  /** Per-request time limit of the SDK client. */
  timeoutMs?: number;
  /** For traces; default `<backend>:<model>`. */
  id?: string;
}

/**
 * The SDK client settings those options mean (OpenAI's and Anthropic's clients take the same keys): no retries by the
 * SDK — a failed request is reported and the run decides — and the headers and timeout only when given.
 */
export function sdkClientOptions(options: HttpModelOptions): {
  maxRetries: number;
  defaultHeaders?: Record<string, string>;
  timeout?: number;
} {
  return {
    maxRetries: 0,
    ...(options.headers ? { defaultHeaders: options.headers } : {}),
    ...(options.timeoutMs ? { timeout: options.timeoutMs } : {}),
  };
}

/** One HTTP backend's defaults: its name (in ids and errors), a model name for examples, where its server is. */
export interface HttpBackend {
  name: string;
  exampleModel: string;
  baseURLEnv: string;
  defaultBaseURL: string;
}

/**
 * What every HTTP backend works out first: a model name is required (a clear error naming an example otherwise), the
 * server is the option, else the backend's environment variable, else its public API; the id defaults to
 * `<backend>:<model>`.
 */
export function resolveHttpModel(
  backend: HttpBackend,
  options: HttpModelOptions & { model?: string; baseURL?: string },
): { id: string; baseURL: string } {
  if (!options.model) {
    throw new ModelConfigError(
      `The ${backend.name} backend needs a model name, e.g. { model: "${backend.exampleModel}" }.`,
    );
  }
  return {
    id: options.id ?? `${backend.name}:${options.model}`,
    baseURL: options.baseURL ?? process.env[backend.baseURLEnv] ?? backend.defaultBaseURL,
  };
}
