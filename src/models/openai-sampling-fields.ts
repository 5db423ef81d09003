import type { SamplingSettings } from "../core/language-model.js";

/** The sampling settings both OpenAI wire formats (chat and `/v1/completions`) share, as a model configures them. */
export type ConfiguredSampling = Pick<
  SamplingSettings,
  "temperature" | "topP" | "seed" | "presencePenalty" | "frequencyPenalty"
>;

/**
 * The OpenAI request fields for a turn's sampling: the request's settings, else the model's configured ones; a
 * setting neither gives is left out, so the server's own default applies.
 */
export function openAISamplingFields(
  request: SamplingSettings | undefined,
  configured: ConfiguredSampling,
): Record<string, number> {
  const r = request ?? {};
  const fields: Record<string, number | undefined> = {
    temperature: r.temperature ?? configured.temperature,
    top_p: r.topP ?? configured.topP,
    seed: r.seed ?? configured.seed,
    presence_penalty: r.presencePenalty ?? configured.presencePenalty,
    frequency_penalty: r.frequencyPenalty ?? configured.frequencyPenalty,
  };
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Record<
    string,
    number
  >;
}
