import type { RenderCatalogueOptions } from "../types.js";

/** The caller's extra instruction, as catalogue lines (none when not given). */
export function extraInstructionLines(opts: RenderCatalogueOptions | undefined): string[] {
  return opts?.extraInstructions ? [opts.extraInstructions] : [];
}

/** `line` when the caller allows one call per turn only (`parallel: false`), else nothing. */
export function oneCallOnlyLines(opts: RenderCatalogueOptions | undefined, line: string): string[] {
  return opts?.parallel === false ? [line] : [];
}
