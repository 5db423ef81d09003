import type { LanguageModel } from "../../core/language-model.js";

/**
 * The named models runs may use (structural: the /v1 branch's ModelCatalog implements it from the config's `models`;
 * tests pass replay models through a small object of this shape). `get()` without a name gives the default one.
 */
export interface RunModels {
  names(): string[];
  readonly defaultName: string;
  get(name?: string): Promise<LanguageModel>;
}
