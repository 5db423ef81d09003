import type { Tool } from "@modelcontextprotocol/server";
import { extraInstructionLines, oneCallOnlyLines } from "../render/catalogue-option-lines.js";
import type { RenderCatalogueOptions } from "../types.js";
import { type GemmaCallTokens, renderGemmaDeclaration } from "./shared-gemma-call-syntax.js";

/** What tells one Gemma-syntax catalogue from another: the wording around the declarations. */
export interface GemmaCatalogueWording {
  /** Text the declarations follow on the same line (FunctionGemma's developer-turn sentence); "" for none. */
  intro: string;
  /** A line after the declarations saying how to call (Gemma 4's template has none, so we add it). */
  howToCall?: string;
  /** The line asking for one call at most (`parallel: false`). */
  oneCallOnly: string;
}

/**
 * The tool catalogue of the Gemma call syntax (Gemma 4, FunctionGemma): each tool as
 * `<declarationStart>declaration:name{…}<declarationEnd>`, back to back, in the format's own tokens and wording.
 */
export function renderGemmaCatalogue(
  tools: readonly Tool[],
  opts: RenderCatalogueOptions | undefined,
  tokens: GemmaCallTokens,
  wording: GemmaCatalogueWording,
): string {
  return [
    `${wording.intro}${tools.map((t) => renderGemmaDeclaration(t, tokens)).join("")}`,
    ...(wording.howToCall ? [wording.howToCall] : []),
    ...oneCallOnlyLines(opts, wording.oneCallOnly),
    ...extraInstructionLines(opts),
  ].join("\n");
}
