/**
 * An error answer of the API: `{"error": {message, type, param, code}}` with its HTTP status (over HTTP, or beside the
 * body in a WebSocket error reply). `code` says which error (`approval_required`, `run_not_found`, …).
 */
export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly type: string | undefined,
    readonly code: string | null | undefined,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

type UnauthorizedListener = () => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/** Called when any request is answered 401: the session ended (token changed, cookie expired). */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/**
 * A JSON request to this server. Credentials are the session cookie the browser holds (HttpOnly: script never sees
 * the token); every change carries the Origin header the server's guard checks, which the browser adds itself.
 */
export async function api<T>(
  path: string,
  options: { method?: string; body?: unknown; signal?: AbortSignal } = {},
): Promise<T> {
  const init: RequestInit = {
    method: options.method ?? (options.body === undefined ? "GET" : "POST"),
    credentials: "same-origin",
    headers: options.body === undefined ? {} : { "content-type": "application/json" },
  };
  if (options.body !== undefined) init.body = JSON.stringify(options.body);
  if (options.signal) init.signal = options.signal;
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if ((error as Error).name === "AbortError") throw error;
    throw new ApiError(
      "The server cannot be reached. It may be restarting; retrying shortly.",
      0,
      "network",
      null,
    );
  }
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!response.ok) {
    const error = (body as { error?: { message?: string; type?: string; code?: string } })?.error;
    if (response.status === 401 && !path.startsWith("/api/session"))
      for (const listener of unauthorizedListeners) listener();
    throw new ApiError(
      error?.message ?? `${response.status} ${response.statusText}`,
      response.status,
      error?.type,
      error?.code,
    );
  }
  return body as T;
}

/** Human text for an error of any kind. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
