import type { LanguageModel } from "../core/language-model.js";
import { type EvalVariant, NATIVE } from "../eval/eval-variant.js";
import type { ModelSettings } from "./model-settings.js";

/** The model settings one variant runs with: native tools, or a text protocol (with the grammar on a GGUF). */
export function variantSettings(settings: ModelSettings, variant: EvalVariant): ModelSettings {
  if (variant.protocol === undefined) return settings;
  const { protocol: _p, grammar: _g, nativeTools: _n, ...rest } = settings;
  if (variant.protocol === NATIVE) return { ...rest, nativeTools: true };
  return {
    ...rest,
    protocol: variant.protocol,
    ...(settings.provider === "completions" ? {} : { nativeTools: false }),
    ...(variant.grammar !== undefined ? { grammar: variant.grammar } : {}),
  };
}

/** What the model does with tools when nothing is chosen for it: the baseline of a sweep. */
export function ownVariant(model: LanguageModel, settings: ModelSettings): EvalVariant {
  const routed = model as { supportsNativeTools?: boolean; protocol?: { id: string } };
  if (routed.supportsNativeTools !== false) return { protocol: NATIVE };
  const protocol = routed.protocol?.id;
  if (protocol === undefined) return {};
  return settings.provider === "llama" ? { protocol, grammar: settings.grammar ?? true } : { protocol };
}

/** Identifies the model in a report, so `--resume` never mixes two models' answers. */
export function modelIdentity(settings: ModelSettings): Record<string, unknown> {
  const { provider, path, baseUrl, name, chatTemplate } = settings;
  return JSON.parse(JSON.stringify({ provider, path, baseUrl, name, chatTemplate })) as Record<
    string,
    unknown
  >;
}
