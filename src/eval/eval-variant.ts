import { EvalInputError } from "./eval-errors.js";

/**
 * One way of offering the tools to a model: its backend's native tool calling, or a text protocol — on a local GGUF
 * with the call grammar on or off. `protocol` undefined: as the model is configured.
 */
export interface EvalVariant {
  protocol?: string;
  grammar?: boolean;
}

export const NATIVE = "native";

/** A stable key for reports and journals: `native`, `hermes`, `hermes+grammar`, `hermes-grammar`, `configured`. */
export function variantKey(variant: EvalVariant): string {
  const base = variant.protocol ?? "configured";
  if (variant.grammar === undefined) return base;
  return `${base}${variant.grammar ? "+" : "-"}grammar`;
}

/** For people: `native tools`, `hermes (grammar)`, `hermes (no grammar)`. */
export function variantLabel(variant: EvalVariant): string {
  const base = variant.protocol === NATIVE ? "native tools" : (variant.protocol ?? "as configured");
  if (variant.grammar === undefined) return base;
  return `${base} (${variant.grammar ? "grammar" : "no grammar"})`;
}

export interface VariantChoices {
  /** The text protocols toolbridge implements, in registry order. */
  protocols: readonly string[];
  /** The backend has native tool calling (false for a /v1/completions server). */
  native: boolean;
  /** The call grammar can be switched (a local GGUF). */
  grammarApplies: boolean;
  /** `--grammar` / `--no-grammar`, when given: only that setting; otherwise a sweep tries both. */
  grammar?: boolean;
}

/**
 * `--protocol`: `native`, one protocol id, a comma-separated list of them, or `all` (native where the backend has it,
 * then every protocol). Each text protocol is tried with the grammar on and off on a local GGUF, unless `--grammar` /
 * `--no-grammar` says which. Undefined text: one variant, as the model is configured.
 */
export function parseVariants(text: string | undefined, choices: VariantChoices): EvalVariant[] {
  const grammars = (sweep: boolean): (boolean | undefined)[] => {
    if (!choices.grammarApplies) return [undefined];
    if (choices.grammar !== undefined) return [choices.grammar];
    return sweep ? [true, false] : [true];
  };
  if (text === undefined) return [choices.grammar === undefined ? {} : { grammar: choices.grammar }];
  const names = text
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "");
  if (names.length === 0) throw new EvalInputError("--protocol names no protocol.");
  const wanted = names.includes("all") ? [...(choices.native ? [NATIVE] : []), ...choices.protocols] : names;
  const sweep = wanted.length > 1;
  const variants: EvalVariant[] = [];
  for (const name of new Set(wanted)) {
    if (name === NATIVE) {
      if (!choices.native) {
        throw new EvalInputError(
          "--protocol native: this backend has no native tool calling (a /v1/completions server is text-only); name a text protocol or all.",
        );
      }
      variants.push({ protocol: NATIVE });
      continue;
    }
    if (!choices.protocols.includes(name)) {
      throw new EvalInputError(
        `--protocol: unknown protocol "${name}". Use native, all, or one or more of: ${choices.protocols.join(", ")}.`,
      );
    }
    for (const grammar of grammars(sweep))
      variants.push(grammar === undefined ? { protocol: name } : { protocol: name, grammar });
  }
  return variants;
}
