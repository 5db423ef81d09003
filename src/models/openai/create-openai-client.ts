import type OpenAI from "openai";
import { type HttpModelOptions, sdkClientOptions } from "../http-model-options.js";

export type OpenAISdk = typeof import("openai");

let sdk: Promise<OpenAISdk> | undefined;

/**
 * The `openai` package, imported at a model's first request rather than with toolbridge: it is a few hundred modules
 * that a program which never talks to an OpenAI-compatible server should not load.
 */
export function loadOpenAISdk(): Promise<OpenAISdk> {
  sdk ??= import("openai").catch((error: unknown) => {
    sdk = undefined;
    throw error;
  });
  return sdk;
}

/**
 * The client of an OpenAI-compatible backend (chat or completions): the one given, else one for `baseURL` with the key
 * from the options or `OPENAI_API_KEY` — local servers need none, but the client insists on one, so a placeholder.
 */
export async function createOpenAIClient(
  options: HttpModelOptions & { client?: OpenAI; apiKey?: string },
  baseURL: string,
): Promise<OpenAI> {
  if (options.client) return options.client;
  const { default: OpenAIClient } = await loadOpenAISdk();
  return new OpenAIClient({
    baseURL,
    apiKey: options.apiKey ?? process.env.OPENAI_API_KEY ?? "not-needed",
    ...sdkClientOptions(options),
  });
}
