import OpenAI from "openai";
import { type HttpModelOptions, sdkClientOptions } from "../http-model-options.js";

/**
 * The client of an OpenAI-compatible backend (chat or completions): the one given, else one for `baseURL` with the key
 * from the options or `OPENAI_API_KEY` — local servers need none, but the client insists on one, so a placeholder.
 */
export function createOpenAIClient(
  options: HttpModelOptions & { client?: OpenAI; apiKey?: string },
  baseURL: string,
): OpenAI {
  return (
    options.client ??
    new OpenAI({
      baseURL,
      apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? "not-needed",
      ...sdkClientOptions(options),
    })
  );
}
