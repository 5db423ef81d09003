import { ModelRequestError } from "../model-errors.js";
import { loadOpenAISdk } from "./create-openai-client.js";

/**
 * An `openai` client error → an error whose message says what to fix. Aborts are returned unchanged (the loop
 * reports them as cancellation or timeout, not as a model error). Only called once a request was made, so the SDK is
 * loaded by then.
 */
export async function describeOpenAIError(error: unknown, baseURL: string, model: string): Promise<unknown> {
  const { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } =
    await loadOpenAISdk();
  if (error instanceof APIUserAbortError) return error;
  if (error instanceof APIConnectionTimeoutError) {
    return new ModelRequestError(
      `The model server at ${baseURL} did not answer in time. Is it overloaded, or is the model still loading?`,
    );
  }
  if (error instanceof APIConnectionError) {
    const cause = error.cause instanceof Error ? ` (${error.cause.message})` : "";
    return new ModelRequestError(
      `Could not reach the model server at ${baseURL}${cause}. Is it running, and is the base URL right (it usually ends in /v1)?`,
    );
  }
  if (error instanceof APIError) {
    const status = error.status;
    const detail = error.message.replace(/^\d{3}\s*/, "");
    if (status === 401 || status === 403) {
      return new ModelRequestError(
        `The model server at ${baseURL} refused the API key (${status}). Set OPENAI_API_KEY (or apiKey) to a valid key.`,
        status,
      );
    }
    if (status === 404) {
      return new ModelRequestError(
        `The model server at ${baseURL} answered 404 for model "${model}": ${detail}. Check the model name and that the base URL ends in /v1.`,
        status,
      );
    }
    if (status === 400 && /tool/i.test(detail)) {
      return new ModelRequestError(
        `The model server at ${baseURL} rejected the tools (400: ${detail}). llama.cpp's server needs --jinja for tools; a server without tool support can be used through the "completions" backend with a text protocol.`,
        status,
      );
    }
    return new ModelRequestError(
      `The model server at ${baseURL} answered ${status ?? "an error"}: ${detail}`,
      status,
    );
  }
  return error;
}
